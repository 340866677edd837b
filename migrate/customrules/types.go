package customrules

import (
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Phase is the phase of the zone entry-point ruleset that holds custom rules.
const Phase = vocab.PhaseCustomRules

// Severities of a Diagnostic.
const (
	SeverityError   = celcheck.SeverityError
	SeverityWarning = celcheck.SeverityWarning
	SeverityInfo    = celcheck.SeverityInfo
)

// Diagnostic codes of this package. Codes of the CEL checker that have no
// counterpart here (type-mismatch, unknown-field, bad-regex, ...) pass through
// unchanged, except its "syntax" (here "parse") and "plan" (split below).
const (
	CodeParse        = "parse"         // the expression does not parse: no rule
	CodeTemplated    = "templated"     // template placeholders: render first
	CodeLength       = "length"        // the translated expression is longer than 4,096 characters
	CodeRenamedField = "renamed-field" // a deprecated field name was renamed
	CodeThreatScore  = "threat-score"  // cf.threat_score is always 0: the rule is created disabled
	CodePlanRegex    = "plan-regex"    // matches/~ below Business
	CodePlanField    = "plan-field"    // a field above the zone's plan
	CodePlanFunction = "plan-function" // a function above the zone's plan
	CodePlanLog      = "plan-log"      // the log action below Enterprise
	CodeAction       = "action"        // an action with no custom-rule counterpart
	CodeProducts     = "products"      // bypass products missing or unknown
	CodeOrder        = "order"         // how the list order relates to the old evaluation order
	CodeQuota        = "quota"         // more rules than the plan's custom-rule quota
)

// How an existing custom rule is recognised as a firewall rule's translation.
const (
	// MatchRef: its ref is the firewall rule's id or ref (an earlier run of sunset).
	MatchRef = "ref"
	// MatchMeaning: it does what the translation does (package meaning), whoever
	// wrote it.
	MatchMeaning = "meaning"
)

// Options steer a translation.
type Options struct {
	// Plan is the zone plan's legacy id: free, pro, business or enterprise;
	// "" means unknown, and then nothing is checked against a plan.
	Plan string
	// Existing are the custom rules already in the zone's entry point: kept
	// first in Result.Ruleset and counted in the quota.
	Existing []inventory.RulesetRule
}

// Diagnostic is one problem or remark about a translation: the CEL checker's
// type, so its diagnostics pass through with only their code changed. It is
// positioned in the ORIGINAL expression when it has a position (Line and
// Column 0 otherwise, as for set-level diagnostics); Render draws the caret.
type Diagnostic = celcheck.Diagnostic

// RuleTranslation is one custom rule made from one firewall rule (or from an
// allow+bypass pair).
type RuleTranslation struct {
	// FirewallRuleIDs are the source rules, in list order (bypass then allow
	// for a merged pair).
	FirewallRuleIDs []string `json:"firewall_rule_ids"`
	// FirewallActions are the source rules' actions, in the same order.
	FirewallActions []string `json:"firewall_actions"`
	// FilterID is the filter of the first source rule.
	FilterID      string `json:"filter_id,omitempty"`
	OldExpression string `json:"old_expression"`
	// NewExpression is the canonical printed form after renames; "" when the
	// expression does not parse.
	NewExpression string `json:"new_expression"`
	// Rule is the custom rule; nil when it cannot be made (unparsable
	// expression, unknown action, bypass without products). For a rule
	// already migrated it is the existing custom rule.
	Rule *inventory.RulesetRule `json:"rule"`
	// Index is Rule's position in Result.Ruleset, -1 when Rule is not in it
	// (the API would reject it, it does not fit the quota, or there is none).
	Index int `json:"index"`
	// Match says how an existing custom rule was recognised as the
	// translation (MatchRef, MatchMeaning); "" when the rule is new.
	Match       string       `json:"match,omitempty"`
	Changes     []string     `json:"changes"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Result is a zone's translation.
type Result struct {
	// Rules are the translations in the NEW list order, which is the old
	// evaluation order; rules left out of Ruleset keep their place here.
	Rules []RuleTranslation `json:"translations"`
	// Ruleset is Existing first, then the translated rules in order: the
	// rules of the PUT .../entrypoint body.
	Ruleset []inventory.RulesetRule `json:"rules"`
	// Diagnostics are set-level: ordering that cannot be kept, the quota.
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Quota is the plan's custom-rule quota (0 = unknown plan).
	Quota int `json:"quota"`
}

// Counts returns how many error and warning diagnostics the result holds,
// on rules and set-level.
func (r *Result) Counts() (errors, warnings int) {
	count := func(ds []Diagnostic) {
		for _, d := range ds {
			switch d.Severity {
			case SeverityError:
				errors++
			case SeverityWarning:
				warnings++
			}
		}
	}
	count(r.Diagnostics)
	for _, t := range r.Rules {
		count(t.Diagnostics)
	}
	return errors, warnings
}

// ExpressionResult is one expression's translation.
type ExpressionResult struct {
	Input string `json:"input"`
	// Valid is true when there is an Expression and no error diagnostic.
	Valid bool `json:"valid"`
	// Expression is the translated expression in canonical form; "" when the
	// input does not parse.
	Expression  string       `json:"expression"`
	Changes     []string     `json:"changes"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Quota returns the custom-rule quota of a plan (every rule of the phase
// counts), 0 when the plan is unknown.
func Quota(plan string) int { return inventory.CustomRulesQuota(plan) }
