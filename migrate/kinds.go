package migrate

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// StepKind names what a step does. Every kind a plan may hold is in the registry (KindSpecs):
// the one contract between the translators, which build steps of these kinds, and package
// apply, which checks, runs, prices and undoes them by their spec.
type StepKind string

// Kinds of steps apply runs, by the replacement they make or the old object they retire.
const (
	KindCustomRulesCreate       StepKind = "custom-rules.create"
	KindCustomRulesAdd          StepKind = "custom-rules.add"
	KindCustomRulesVerify       StepKind = "custom-rules.verify"
	KindRateLimitingRulesCreate StepKind = "rate-limiting-rules.create"
	KindRateLimitingRulesAdd    StepKind = "rate-limiting-rules.add"
	KindRateLimitingRulesVerify StepKind = "rate-limiting-rules.verify"
	KindManagedRulesCreate      StepKind = "managed-rules.create"
	KindManagedRulesAdd         StepKind = "managed-rules.add"
	KindManagedRulesVerify      StepKind = "managed-rules.verify"
	KindRedirectRulesCreate     StepKind = "redirect-rules.create"
	KindRedirectRulesAdd        StepKind = "redirect-rules.add"
	KindRedirectRulesVerify     StepKind = "redirect-rules.verify"

	KindFirewallRulePause  StepKind = "firewall-rule.pause"
	KindFirewallRuleDelete StepKind = "firewall-rule.delete"
	KindFilterDelete       StepKind = "filter.delete"
	KindRateLimitPause     StepKind = "rate-limit.pause"
	KindRateLimitDelete    StepKind = "rate-limit.delete"
	KindWAFOverridePause   StepKind = "waf-override.pause"
	KindWAFOverrideDelete  StepKind = "waf-override.delete"
	KindWAFOff             StepKind = "waf.previous-version-off"
	KindZoneSettingOff     StepKind = "zone-setting.off"
	KindDNSSettingsPatch   StepKind = "dns-settings.patch"
	KindDNSRecordPatch     StepKind = "dns-record.patch"

	KindAccountDNSSettingsPatch StepKind = "account-dns-settings.patch"
	KindNotificationPolicyNew   StepKind = "notification-policy.create"
	KindPoolClearEmail          StepKind = "load-balancer-pool.clear-email"
	KindAccessAppCreate         StepKind = "access-app.create"
	KindAccessBookmarkDelete    StepKind = "access-bookmark.delete"

	// KindNotificationPolicyVerify and KindAccessAppVerify check that an object someone else
	// created already does what the plan's would (it stands for it: nothing is created).
	KindNotificationPolicyVerify StepKind = "notification-policy.verify"
	KindAccessAppVerify          StepKind = "access-app.verify"
)

// Kinds of manual steps: an operator acts; apply never sends their call.
const (
	KindAccountSettingsStop  StepKind = "account-settings.stop-old-fields"
	KindTunnelMove           StepKind = "tunnel.move"
	KindDNSSettingsStopOld   StepKind = "dns-settings.stop-old-endpoint"
	KindDNSRecordReview      StepKind = "dns-record.review"
	KindDNSRecordStopReading StepKind = "dns-record.stop-reading"
	KindRateLimitKeep        StepKind = "rate-limit.keep"
	KindFirewallRuleKeep     StepKind = "firewall-rule.keep"
	KindExpressionReview     StepKind = "expression.review"
	KindZoneSettingStop      StepKind = "zone-setting.stop"
	KindWAFOverrideKeep      StepKind = "waf-override.keep"
	KindFindingReview        StepKind = "finding.review"
)

// Op is how apply carries a kind out: its handler, its read back, its cost and its undo.
type Op int

// Ops.
const (
	// OpManual is never run: an operator acts.
	OpManual Op = iota
	// OpVerify reads an entry point and checks it holds the plan's rules (1 request).
	OpVerify
	// OpCreateEntrypoint PUTs a missing entry point with exactly the plan's rules; undone by
	// deleting the entry point.
	OpCreateEntrypoint
	// OpAddRule POSTs one rule into an existing entry point at its position; undone by
	// deleting the rule.
	OpAddRule
	// OpUpdate PUTs or PATCHes an existing object; undone by writing back what it overwrote.
	OpUpdate
	// OpDelete deletes an old object; it cannot be undone.
	OpDelete
	// OpCreate POSTs a new object to a collection unless one that does the same is there
	// (found by what it does, KindSpec.Same, before and after the POST); undone by deleting it.
	OpCreate
	// OpVerifyObject reads a collection and checks it holds an object that does what the
	// step's body describes (KindSpec.Same): one that exists already stands for the plan's.
	OpVerifyObject
)

// Scope kinds of a step.
const (
	ScopeZone    = "zone"
	ScopeAccount = "account"
)

// KindSpec is what the planner emits for one step kind, and so all apply accepts of it.
type KindSpec struct {
	Kind  StepKind
	Op    Op
	Scope string // ScopeZone or ScopeAccount
	// Method and Path are the call. Path is a template of literal segments and parameters:
	// {zone} and {account} are the scope's own id, {ruleset} the id of the zone's entry point
	// of Phase as the snapshot holds it, and the others (pathObjects) an object of that
	// collection that the snapshot holds.
	Method, Path string
	// Phase is the entry point the kind writes or reads (ruleset kinds), or the one whose
	// rules replace what a removal retires.
	Phase vocab.Phase
	// Removes is set when the step pauses, deletes, disables or switches off an old
	// protection: it runs only while its replacements are in place.
	Removes bool
	// Whole is set when the write replaces the members its body names whole rather than
	// merging into them (an SRV record's data loses members).
	Whole bool
	// MaxBody is the largest body the planner writes for the kind, in bytes (0: no body).
	MaxBody int
	// Body checks a step's body against what the planner writes for the object it names
	// (bodyCheck); nil when the kind has no body.
	Body func(bodyCheck) error
	// Words say what a step of the kind does, for people ("pause firewall rule"): reports
	// and summaries count and list steps by them instead of by the kind's identifier.
	Words string
	// Same, for a kind that creates an object or checks one is there (OpCreate,
	// OpVerifyObject), is what an object of its collection does (package meaning), read
	// from its JSON: the step's body, or an object as the API lists it.
	Same func(obj json.RawMessage) (meaning.Key, error)
	// ReplacedBy, for a kind that retires an old account object, are the kinds of the
	// steps that put its replacement in place (create it, or check that one is there): a
	// step of the kind depends on one of them, and runs only while its replacement is read
	// in place right before.
	ReplacedBy []StepKind
}

// Undoable reports whether a rollback can undo a step of the kind.
func (s *KindSpec) Undoable() bool {
	return s.Op != OpDelete && s.Op != OpManual && s.Op != OpVerify && s.Op != OpVerifyObject
}

// appSame is what an Access application does, from its JSON.
func appSame(raw json.RawMessage) (meaning.Key, error) {
	var a inventory.AccessApp
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	return meaning.AccessApp(a), nil
}

// policySame is what a notification policy does, from its JSON.
func policySame(raw json.RawMessage) (meaning.Key, error) {
	var p inventory.NotificationPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", err
	}
	return meaning.NotificationPolicy(p), nil
}

// The collections of the account objects a plan creates.
const (
	policiesPath = "/accounts/{account}/alerting/v3/policies"
	appsPath     = "/accounts/{account}/access/apps"
)

// Body size bounds: an expression is at most expr.MaxLength (4 KiB) and a rule's other
// members a few hundred bytes, so 16 KiB holds any rule the translators write with JSON
// escaping to spare; an entry point holds at most 1,000 rules (the enterprise quota of
// custom rules, domain facts "Quotas per plan").
const (
	maxRuleBody       = 16 << 10
	maxEntrypointBody = 1000 * maxRuleBody
	maxObjectBody     = 64 << 10
)

// rulesetKinds are the kinds of one phase's entry point changes.
type rulesetKinds struct {
	create, add, verify StepKind
	phase               vocab.Phase
}

var (
	customRuleKinds    = rulesetKinds{KindCustomRulesCreate, KindCustomRulesAdd, KindCustomRulesVerify, vocab.PhaseCustomRules}
	rateLimitRuleKinds = rulesetKinds{KindRateLimitingRulesCreate, KindRateLimitingRulesAdd, KindRateLimitingRulesVerify, vocab.PhaseRateLimiting}
	managedRuleKinds   = rulesetKinds{KindManagedRulesCreate, KindManagedRulesAdd, KindManagedRulesVerify, vocab.PhaseManaged}
	redirectRuleKinds  = rulesetKinds{KindRedirectRulesCreate, KindRedirectRulesAdd, KindRedirectRulesVerify, vocab.PhaseDynamicRedirect}
)

// rulesetSpecs are the three specs of one phase's entry point changes.
func rulesetSpecs(k rulesetKinds) []KindSpec {
	entry := "/zones/{zone}/rulesets/phases/" + string(k.phase) + "/entrypoint"
	return []KindSpec{
		{Kind: k.create, Op: OpCreateEntrypoint, Scope: ScopeZone, Method: http.MethodPut, Path: entry, Phase: k.phase, MaxBody: maxEntrypointBody, Body: checkEntrypointBody},
		{Kind: k.add, Op: OpAddRule, Scope: ScopeZone, Method: http.MethodPost, Path: "/zones/{zone}/rulesets/{ruleset}/rules", Phase: k.phase, MaxBody: maxRuleBody, Body: checkAddRuleBody},
		{Kind: k.verify, Op: OpVerify, Scope: ScopeZone, Method: http.MethodGet, Path: entry, Phase: k.phase},
	}
}

// KindSpecs is the registry: every kind a plan may hold.
var KindSpecs = buildRegistry()

func buildRegistry() map[StepKind]*KindSpec {
	specs := []KindSpec{
		{Kind: KindFirewallRulePause, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPut, Path: "/zones/{zone}/firewall/rules/{firewall_rule}", Phase: vocab.PhaseCustomRules, Removes: true, MaxBody: maxObjectBody, Body: checkPausedRule},
		{Kind: KindFirewallRuleDelete, Op: OpDelete, Scope: ScopeZone, Method: http.MethodDelete, Path: "/zones/{zone}/firewall/rules/{firewall_rule}", Phase: vocab.PhaseCustomRules, Removes: true},
		{Kind: KindFilterDelete, Op: OpDelete, Scope: ScopeZone, Method: http.MethodDelete, Path: "/zones/{zone}/filters/{filter}", Phase: vocab.PhaseCustomRules, Removes: true},
		{Kind: KindRateLimitPause, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPut, Path: "/zones/{zone}/rate_limits/{rate_limit}", Phase: vocab.PhaseRateLimiting, Removes: true, MaxBody: maxObjectBody, Body: checkDisabledRateLimit},
		{Kind: KindRateLimitDelete, Op: OpDelete, Scope: ScopeZone, Method: http.MethodDelete, Path: "/zones/{zone}/rate_limits/{rate_limit}", Phase: vocab.PhaseRateLimiting, Removes: true},
		{Kind: KindWAFOverridePause, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPut, Path: "/zones/{zone}/firewall/waf/overrides/{waf_override}", Phase: vocab.PhaseManaged, Removes: true, MaxBody: maxObjectBody, Body: checkPausedOverride},
		{Kind: KindWAFOverrideDelete, Op: OpDelete, Scope: ScopeZone, Method: http.MethodDelete, Path: "/zones/{zone}/firewall/waf/overrides/{waf_override}", Phase: vocab.PhaseManaged, Removes: true},
		{Kind: KindWAFOff, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPatch, Path: "/zones/{zone}/settings/waf", Phase: vocab.PhaseManaged, Removes: true, MaxBody: maxObjectBody, Body: checkWAFOff},
		{Kind: KindZoneSettingOff, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPatch, Path: "/zones/{zone}/settings/mobile_redirect", Phase: vocab.PhaseDynamicRedirect, Removes: true, MaxBody: maxObjectBody, Body: checkMobileRedirectOff},
		{Kind: KindDNSSettingsPatch, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPatch, Path: "/zones/{zone}/dns_settings", MaxBody: maxObjectBody, Body: checkDNSSettingsPatch},
		{Kind: KindDNSRecordPatch, Op: OpUpdate, Scope: ScopeZone, Method: http.MethodPatch, Path: "/zones/{zone}/dns_records/{dns_record}", Whole: true, MaxBody: maxObjectBody, Body: checkSRVPatch},
		{Kind: KindAccountDNSSettingsPatch, Op: OpUpdate, Scope: ScopeAccount, Method: http.MethodPatch, Path: "/accounts/{account}/dns_settings", MaxBody: maxObjectBody, Body: checkAccountDNSPatch},
		{Kind: KindNotificationPolicyNew, Op: OpCreate, Scope: ScopeAccount, Method: http.MethodPost, Path: policiesPath, MaxBody: maxObjectBody, Body: checkPoolPolicy, Same: policySame},
		{Kind: KindNotificationPolicyVerify, Op: OpVerifyObject, Scope: ScopeAccount, Method: http.MethodGet, Path: policiesPath, MaxBody: maxObjectBody, Body: checkPoolPolicy, Same: policySame},
		{Kind: KindPoolClearEmail, Op: OpUpdate, Scope: ScopeAccount, Method: http.MethodPatch, Path: "/accounts/{account}/load_balancers/pools/{pool}", MaxBody: maxObjectBody, Body: checkClearEmail, ReplacedBy: []StepKind{KindNotificationPolicyNew, KindNotificationPolicyVerify}},
		{Kind: KindAccessAppCreate, Op: OpCreate, Scope: ScopeAccount, Method: http.MethodPost, Path: appsPath, MaxBody: maxObjectBody, Body: checkBookmarkApp, Same: appSame},
		{Kind: KindAccessAppVerify, Op: OpVerifyObject, Scope: ScopeAccount, Method: http.MethodGet, Path: appsPath, MaxBody: maxObjectBody, Body: checkBookmarkApp, Same: appSame},
		{Kind: KindAccessBookmarkDelete, Op: OpDelete, Scope: ScopeAccount, Method: http.MethodDelete, Path: "/accounts/{account}/access/bookmarks/{bookmark}", ReplacedBy: []StepKind{KindAccessAppCreate, KindAccessAppVerify}},
	}
	for _, k := range []rulesetKinds{customRuleKinds, rateLimitRuleKinds, managedRuleKinds, redirectRuleKinds} {
		specs = append(specs, rulesetSpecs(k)...)
	}
	for _, k := range []StepKind{KindAccountSettingsStop, KindTunnelMove, KindDNSSettingsStopOld, KindDNSRecordReview, KindDNSRecordStopReading, KindRateLimitKeep, KindFirewallRuleKeep, KindExpressionReview, KindZoneSettingStop, KindWAFOverrideKeep, KindFindingReview} {
		specs = append(specs, KindSpec{Kind: k, Op: OpManual})
	}
	out := make(map[StepKind]*KindSpec, len(specs))
	for i := range specs {
		specs[i].Words = kindWords[specs[i].Kind]
		out[specs[i].Kind] = &specs[i]
	}
	return out
}

// kindWords are the kinds' Words, kept apart from the specs so each reads on one line.
var kindWords = map[StepKind]string{
	KindCustomRulesCreate:       "create the custom rules entry point",
	KindCustomRulesAdd:          "add custom rule",
	KindCustomRulesVerify:       "verify custom rules",
	KindRateLimitingRulesCreate: "create the rate limiting rules entry point",
	KindRateLimitingRulesAdd:    "add rate limiting rule",
	KindRateLimitingRulesVerify: "verify rate limiting rules",
	KindManagedRulesCreate:      "create the managed rules entry point",
	KindManagedRulesAdd:         "add managed ruleset rule",
	KindManagedRulesVerify:      "verify managed rules",
	KindRedirectRulesCreate:     "create the redirect rules entry point",
	KindRedirectRulesAdd:        "add redirect rule",
	KindRedirectRulesVerify:     "verify redirect rules",

	KindFirewallRulePause:  "pause firewall rule",
	KindFirewallRuleDelete: "delete firewall rule",
	KindFilterDelete:       "delete filter",
	KindRateLimitPause:     "pause rate limit",
	KindRateLimitDelete:    "delete rate limit",
	KindWAFOverridePause:   "pause WAF override",
	KindWAFOverrideDelete:  "delete WAF override",
	KindWAFOff:             "turn off the previous WAF",
	KindZoneSettingOff:     "turn off mobile redirect",
	KindDNSSettingsPatch:   "update zone DNS settings",
	KindDNSRecordPatch:     "rewrite SRV record",

	KindAccountDNSSettingsPatch:  "update account DNS settings",
	KindNotificationPolicyNew:    "create notification policy",
	KindPoolClearEmail:           "clear pool notification e-mail",
	KindAccessAppCreate:          "create Access bookmark app",
	KindAccessBookmarkDelete:     "delete Access bookmark",
	KindNotificationPolicyVerify: "verify notification policy",
	KindAccessAppVerify:          "verify Access bookmark app",

	KindAccountSettingsStop:  "stop using the old account settings fields",
	KindTunnelMove:           "move tunnel",
	KindDNSSettingsStopOld:   "stop using the old DNS settings endpoint",
	KindDNSRecordReview:      "review DNS record",
	KindDNSRecordStopReading: "stop reading old DNS record fields",
	KindRateLimitKeep:        "keep rate limit",
	KindFirewallRuleKeep:     "keep firewall rule",
	KindExpressionReview:     "review expression",
	KindZoneSettingStop:      "stop using zone setting",
	KindWAFOverrideKeep:      "keep WAF override",
	KindFindingReview:        "review finding",
}

// SpecOf is the registry's spec of a step's kind; nil when the kind is not in it.
func SpecOf(st Step) *KindSpec { return KindSpecs[st.Kind] }

// segments splits an API path into its segments.
func segments(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// matchPath matches a path against a template: the parameters' values by name, false when
// the literal segments or the number of segments differ, or a parameter's value is empty.
func matchPath(template, path string) (map[string]string, bool) {
	if !strings.HasPrefix(path, "/") {
		return nil, false
	}
	ts, ps := segments(template), segments(path)
	if len(ts) != len(ps) {
		return nil, false
	}
	params := map[string]string{}
	for i, t := range ts {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if ps[i] == "" || ps[i] == "." || ps[i] == ".." {
				return nil, false
			}
			params[t[1:len(t)-1]] = ps[i]
			continue
		}
		if t != ps[i] {
			return nil, false
		}
	}
	return params, true
}
