package customrules

import (
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Phase is the phase of the zone entry-point ruleset that holds custom rules.
const Phase = "http_request_firewall_custom"

// Severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
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

// Options steer a translation.
type Options struct {
	// Plan is the zone plan's legacy id: free, pro, business or enterprise;
	// "" means unknown, and then nothing is checked against a plan.
	Plan string
	// Existing are the custom rules already in the zone's entry point: kept
	// first in Result.Ruleset and counted in the quota.
	Existing []inventory.RulesetRule
}

// Diagnostic is one problem or remark, positioned in the ORIGINAL expression
// when it has a position (Line and Column 0 otherwise).
type Diagnostic struct {
	Severity string `json:"severity"`
	// Code is stable: callers and tests match on it.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Line and Column are 1-based; Column counts characters (runes).
	Line   int `json:"line"`
	Column int `json:"column"`
}

// String formats the diagnostic as "line:col: severity: message [code]",
// without the position when it has none.
func (d Diagnostic) String() string {
	if d.Line == 0 {
		return fmt.Sprintf("%s: %s [%s]", d.Severity, d.Message, d.Code)
	}
	return fmt.Sprintf("%d:%d: %s: %s [%s]", d.Line, d.Column, d.Severity, d.Message, d.Code)
}

// Render formats the diagnostic and, when it has a position inside src, the
// source line with a caret under the character it is about.
func (d Diagnostic) Render(src string) string {
	s := d.String()
	if d.Line < 1 || d.Column < 1 {
		return s
	}
	lines := strings.Split(src, "\n")
	if d.Line > len(lines) {
		return s
	}
	line := strings.TrimSuffix(lines[d.Line-1], "\r")
	var caret strings.Builder
	col := 1
	for _, r := range line {
		if col >= d.Column {
			break
		}
		// Keep tabs so the caret lines up whatever the tab width.
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
		col++
	}
	return s + "\n" + line + "\n" + caret.String() + "^"
}

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
	Index       int          `json:"index"`
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
