// Package migrate turns a scan (a snapshot and its findings) into a migration plan: per zone
// and per account, the ordered steps that move every deprecated object to its replacement,
// each with the API call that does it (or the manual action when no call can), why it is
// there, which findings it resolves and its risk. The same plan renders as JSON (WriteJSON),
// Markdown (WriteMarkdown) and Terraform (package migrate/terraform).
//
// Structure: one translator per resource kind, behind the one-method interface translator:
// firewall rules and filters (firewall*.go, with package customrules), previous-version rate
// limits (ratelimit*.go), previous-version WAF (waf*.go), DNS settings, SRV records and
// record fields (dns.go), deprecated zone settings with the mobile redirect rule
// (settings.go), and the account objects: nameservers, pools, tunnels, bookmarks
// (account.go). A translator reads one zone's or account's objects and findings and adds its
// steps, each in its phase; it knows nothing of the other kinds. The builder (builder.go)
// knows no kind: it runs the translators in a fixed order, files their steps by phase,
// sorts and dedupes each step's lists, gives every finding no translator took a review
// step, and offers the services translators share: the finding index, ruleset entry point
// changes (rulesets.go: create or add, then verify, and the target), notes, retired
// objects, and the catalog's end-of-life dates.
//
// Order, per zone: replacements are created first (custom rules, rate limiting rules,
// managed rulesets, DNS settings, DNS records), then verified (a GET with what to check),
// then the old firewall rules are paused, then deleted, then the filters that no remaining
// rule uses, then the old rate limits and WAF overrides; manual steps close the list. So a
// zone is never left without either its old rules active or its new ones in place.
//
// A plan is idempotent: built again on the migrated state it has no step that changes
// anything. Manual steps that no API call can settle (callers must stop using an endpoint
// whose value is reflected in its replacement, a rule that does not fit the quota) stay,
// with the same ids, until an operator acts on them.
//
// Mappings that domain-facts marks as derived (no official mapping) are implemented,
// documented where they are made, and flagged with Step.Derived.
package migrate

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/sunsetscan/sunset/migrate/verify/ruleeval"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// SchemaVersion is the version of the plan.json format this build writes.
const SchemaVersion = 1

// Change says what a step does to the account, for the summary line.
type Change string

// Changes a step can make.
const (
	ChangeCreate Change = "create" // a new object (rules added to a ruleset count here)
	ChangeUpdate Change = "change" // an existing object changes
	ChangeDelete Change = "delete" // an old object goes
	ChangeVerify Change = "verify" // a read with what to check; changes nothing
	ChangeManual Change = "manual" // an operator must act; no call is made for them
)

// Risk grades what can go wrong when a step runs.
type Risk string

// Risks.
const (
	RiskNone   Risk = "none"   // a read
	RiskLow    Risk = "low"    // no traffic changes (values reflected, names unchanged)
	RiskMedium Risk = "medium" // traffic handling may change if the translation is wrong
	RiskHigh   Risk = "high"   // a known difference in behaviour, or an irreversible loss
)

// Step is one action of a plan.
type Step struct {
	// ID is unique within its zone or account and stable across runs on the same objects:
	// "<kind>" or "<kind>:<object id>".
	ID string `json:"id"`
	// Kind names what the step does, e.g. "custom-rules.create", "firewall-rule.pause".
	Kind   StepKind `json:"kind"`
	Change Change   `json:"change"`
	// Method and Path are the API call (Path relative to the v4 base); empty for a manual
	// step that needs no call. A manual step may carry the call an operator would make.
	Method string          `json:"method,omitempty"`
	Path   string          `json:"path,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// DependsOn lists the ids of the steps (same zone or account) that must be done first.
	DependsOn []string `json:"depends_on"`
	// Resolves lists the fingerprints of the findings this step settles.
	Resolves []string `json:"resolves"`
	Risk     Risk     `json:"risk"`
	// Derived is set when the mapping has no official source (domain-facts "derived").
	Derived bool `json:"derived"`
	// Manual is set when an operator must act (no call, or a call that needs judgement).
	Manual bool `json:"manual"`
	// Title is a one-line summary; Reason says why the step is there.
	Title  string `json:"title"`
	Reason string `json:"reason"`
	// Note holds what the operator should know: rounding, lossy parts, options.
	Note string `json:"note,omitempty"`
	// Checks are what a verify step (or an operator after the step) must confirm.
	Checks []string `json:"checks,omitempty"`
	// Diffs show old -> new expressions (or old settings -> new) the step carries out.
	Diffs []Diff `json:"diffs,omitempty"`
}

// Diff is one old -> new pair shown in the human plan.
type Diff struct {
	// Label names the object, e.g. `firewall rule 1a2b... "Block xmlrpc"`.
	Label string `json:"label"`
	Old   string `json:"old"`
	New   string `json:"new"`
	// Changes explain the difference in words.
	Changes []string `json:"changes,omitempty"`
}

// Target is the state a ruleset entry point should reach: what Terraform declares and what
// the verify step checks.
type Target struct {
	Phase vocab.Phase `json:"phase"`
	// RulesetID is the existing entry point's id; "" when the plan creates it.
	RulesetID string `json:"ruleset_id,omitempty"`
	// Name is the entry point's name (the existing one's, else "default").
	Name string `json:"name"`
	// Rules are every rule of the entry point after the migration, existing ones included.
	Rules []json.RawMessage `json:"rules"`
}

// Retired is an old object the plan deletes, for Terraform removed {} blocks.
type Retired struct {
	// Type is the Terraform resource type of the old object, e.g. cloudflare_firewall_rule.
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Settings is a DNS settings change (zone or account zone_defaults) the plan makes.
type Settings struct {
	FlattenAllCNAMEs   *bool  `json:"flatten_all_cnames,omitempty"`
	MultiProvider      *bool  `json:"multi_provider,omitempty"`
	SecondaryOverrides *bool  `json:"secondary_overrides,omitempty"`
	NameserversType    string `json:"nameservers_type,omitempty"`
}

// IsZero reports whether the change sets nothing.
func (s Settings) IsZero() bool {
	return s.FlattenAllCNAMEs == nil && s.MultiProvider == nil && s.SecondaryOverrides == nil && s.NameserversType == ""
}

// Summary counts the steps of a zone, an account or the whole plan by change.
type Summary struct {
	Create int `json:"create"`
	// Change counts the steps that change an object in place, Pause those that pause,
	// disable or switch off an old one (apply's "paused"): the same words as apply's.
	Change int `json:"change"`
	Pause  int `json:"pause"`
	Delete int `json:"delete"`
	Verify int `json:"verify"`
	Manual int `json:"manual"`
}

// Line renders the summary as the plan's one-line footer.
func (s Summary) Line() string {
	return fmt.Sprintf("%d to create, %d to change, %d to pause, %d to delete, %d manual", s.Create, s.Change, s.Pause, s.Delete, s.Manual)
}

func (s *Summary) add(o Summary) {
	s.Create += o.Create
	s.Change += o.Change
	s.Pause += o.Pause
	s.Delete += o.Delete
	s.Verify += o.Verify
	s.Manual += o.Manual
}

// Pauses reports whether the step changes an old object so that it no longer acts (pauses,
// disables or switches it off: its kind Removes), which apply counts as paused.
func (st Step) Pauses() bool {
	spec := SpecOf(st)
	return st.Change == ChangeUpdate && spec != nil && spec.Removes
}

// ChangeWord is the step's change in words: "pause" for a step that Pauses, else its Change.
func (st Step) ChangeWord() string {
	if st.Pauses() {
		return "pause"
	}
	return string(st.Change)
}

// summarize counts steps; a manual step counts as manual whatever it would change.
func summarize(steps []Step) Summary {
	var s Summary
	for _, st := range steps {
		switch {
		case st.Manual:
			s.Manual++
		case st.Change == ChangeCreate:
			s.Create++
		case st.Pauses():
			s.Pause++
		case st.Change == ChangeUpdate:
			s.Change++
		case st.Change == ChangeDelete:
			s.Delete++
		case st.Change == ChangeVerify:
			s.Verify++
		}
	}
	return s
}

// ZonePlan is the plan of one zone.
type ZonePlan struct {
	ZoneID    string `json:"zone_id"`
	ZoneName  string `json:"zone_name"`
	AccountID string `json:"account_id,omitempty"`
	// PlanLevel is the zone's plan legacy id (free, pro, business, enterprise), "" if unknown.
	PlanLevel string  `json:"plan,omitempty"`
	Steps     []Step  `json:"steps"`
	Summary   Summary `json:"summary"`
	// Targets are the entry points after the migration (custom rules, rate limiting rules,
	// managed rules), for Terraform and for checking.
	Targets []Target `json:"targets,omitempty"`
	// DNSSettings is the DNS settings change the plan makes, if any.
	DNSSettings *Settings `json:"dns_settings,omitempty"`
	// Retired are the old objects the plan deletes.
	Retired []Retired `json:"retired,omitempty"`
	// Notes are zone-wide remarks: quotas, declared differences in behaviour.
	Notes []string `json:"notes,omitempty"`
	// Verification is the old rules and the new ones evaluated on generated requests
	// (package migrate/verify); nil when the plan was not verified.
	Verification *Verification `json:"verification,omitempty"`
}

// Verification is what evaluating a zone's old firewall rules and the plan's custom rules
// on the same generated requests found, and how its rate limits compare.
type Verification struct {
	// Requests is how many generated requests both rule lists were evaluated on.
	Requests int `json:"requests"`
	// Differing is how many of them got another decision from the new rules.
	Differing int `json:"differing"`
	// Differences group the differing requests by their two decisions and the rules they
	// match, each with one witness request.
	Differences []Difference `json:"differences"`
	// RateLimits compares each previous-version rate limit with its rate limiting rule.
	RateLimits []RateLimitCheck `json:"rate_limits,omitempty"`
	// Notes say what the comparison assumed or could not cover.
	Notes []string `json:"notes,omitempty"`
	// Missing is set when the snapshot lacks the zone: nothing was compared.
	Missing bool `json:"missing,omitempty"`
}

// Same reports whether every request got the same decision and every rate limit counted
// the same requests.
func (v *Verification) Same() bool {
	if v.Differing > 0 {
		return false
	}
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			return false
		}
	}
	return true
}

// Decision is what a rule list does to one request (package migrate/verify/ruleeval).
type Decision = ruleeval.Decision

// Difference is one way the new rules decide otherwise than the old ones.
type Difference struct {
	// Requests counts the generated requests that differ this way.
	Requests int      `json:"requests"`
	Old      Decision `json:"old"`
	New      Decision `json:"new"`
	// OldRules are the firewall rules (and existing custom rules) the witness matches, in
	// evaluation order; NewRules the custom rules it matches, in list order.
	OldRules []string `json:"old_rules"`
	NewRules []string `json:"new_rules"`
	// Witness is one such request: the fields the rules involved read.
	Witness map[string]any `json:"witness"`
	// Declared is the plan's own account of the difference, "" when the plan does not
	// declare it.
	Declared string `json:"declared,omitempty"`
}

// RateLimitCheck compares one previous-version rate limit with its rate limiting rule.
type RateLimitCheck struct {
	RateLimitID string `json:"rate_limit_id"`
	// Rule is the ref of the rule that replaces it, "" when the plan keeps the old one.
	Rule string `json:"rule,omitempty"`
	// Requests and Differing count generated requests, and those the two count differently.
	Requests  int `json:"requests"`
	Differing int `json:"differing"`
	// Witness is one differing request (the fields either side reads), with what each side does.
	Witness   map[string]any `json:"witness,omitempty"`
	OldCounts bool           `json:"old_counts,omitempty"`
	NewCounts bool           `json:"new_counts,omitempty"`
	// Exact is set when matching, threshold, period, timeout and action carry over unchanged;
	// NotExact says what does not.
	Exact    bool     `json:"exact"`
	NotExact []string `json:"not_exact,omitempty"`
}

// AccountPlan is the plan of the account-scoped objects of one account.
type AccountPlan struct {
	AccountID   string    `json:"account_id"`
	AccountName string    `json:"account_name,omitempty"`
	Steps       []Step    `json:"steps"`
	Summary     Summary   `json:"summary"`
	DNSSettings *Settings `json:"dns_settings,omitempty"`
	Notes       []string  `json:"notes,omitempty"`
}

// Plan is a whole migration plan.
type Plan struct {
	SchemaVersion int `json:"schema_version"`
	// AsOf is the day the findings were judged on (YYYY-MM-DD), "" when unknown.
	AsOf string `json:"as_of,omitempty"`
	// Source is where the snapshot was read from (inventory.Snapshot.Source): the API's base
	// URL without user info or query, or a label (the demo's); apply goes there by default.
	Source string `json:"source,omitempty"`
	// Incomplete is set when the scan the plan was built from did not read everything
	// (inventory.Snapshot.Incomplete: interrupted, or parts that failed); Unread names the
	// zones and accounts it did not read whole. Apply and verify refuse such a plan unless
	// told to skip them: a zone read in part may be planned from half its rules. Both are
	// left out of a complete plan's JSON, which stays as it was before they existed.
	Incomplete bool          `json:"incomplete,omitempty"`
	Unread     []Unread      `json:"unread,omitempty"`
	Accounts   []AccountPlan `json:"accounts"`
	Zones      []ZonePlan    `json:"zones"`
	Summary    Summary       `json:"summary"`
	// Unplanned are fingerprints of findings no step resolves (file findings, entries the
	// plan has no mapping for); normally empty for a live scan.
	Unplanned []string `json:"unplanned"`
}

// Zone returns the plan of the zone with the given id or name.
func (p *Plan) Zone(idOrName string) (*ZonePlan, bool) {
	for i := range p.Zones {
		if p.Zones[i].ZoneID == idOrName || p.Zones[i].ZoneName == idOrName {
			return &p.Zones[i], true
		}
	}
	return nil, false
}

// Steps returns every step of the plan, accounts first, in plan order.
func (p *Plan) Steps() []Step {
	var out []Step
	for _, a := range p.Accounts {
		out = append(out, a.Steps...)
	}
	for _, z := range p.Zones {
		out = append(out, z.Steps...)
	}
	return out
}

// ManualFindings returns the fingerprints resolved by at least one manual step: findings that
// may remain after every automatic step ran.
func (p *Plan) ManualFindings() map[string]bool {
	out := map[string]bool{}
	for _, st := range p.Steps() {
		if st.Manual {
			for _, f := range st.Resolves {
				out[f] = true
			}
		}
	}
	return out
}

// WriteJSON writes the plan as indented JSON, the machine form (plan.json).
func (p *Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// ReadPlan loads a plan written by WriteJSON; a newer schema version is refused.
func ReadPlan(r io.Reader) (*Plan, error) {
	var p Plan
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("plan: not valid JSON: %w", err)
	}
	if p.SchemaVersion == 0 || p.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("plan: schema_version %d is not one this sunset reads (1..%d)", p.SchemaVersion, SchemaVersion)
	}
	p.recount()
	return &p, nil
}

// recount counts the summaries again from the steps: they are the steps' counts whatever the
// file says (a plan of an earlier sunset counted pauses as changes).
func (p *Plan) recount() {
	p.Summary = Summary{}
	for i := range p.Accounts {
		p.Accounts[i].Summary = summarize(p.Accounts[i].Steps)
		p.Summary.add(p.Accounts[i].Summary)
	}
	for i := range p.Zones {
		p.Zones[i].Summary = summarize(p.Zones[i].Steps)
		p.Summary.add(p.Zones[i].Summary)
	}
}

// finish fills summaries and sorts what is not in step order.
func (p *Plan) finish() {
	for i := range p.Zones {
		p.Zones[i].finish()
	}
	p.recount()
	sort.Strings(p.Unplanned)
}

// finish fills the zone's summary and sorts its retired objects.
func (z *ZonePlan) finish() {
	z.Summary = summarize(z.Steps)
	sort.Slice(z.Retired, func(a, b int) bool {
		if z.Retired[a].Type != z.Retired[b].Type {
			return z.Retired[a].Type < z.Retired[b].Type
		}
		return z.Retired[a].ID < z.Retired[b].ID
	})
}
