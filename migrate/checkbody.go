package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// bodyCheck is what a kind's body check sees: the step, its body, the object its path
// names (a typed inventory value, nil when none), the scope's inventory, and the scope's
// target of the kind's phase (ruleset kinds).
type bodyCheck struct {
	step    Step
	body    []byte
	obj     any
	zone    *inventory.ZoneInventory
	account *inventory.AccountInventory
	target  *Target
	params  map[string]string
}

// want compares the body with the one the planner writes.
func (c bodyCheck) want(planned json.RawMessage) error {
	if !sameJSON(c.body, planned) {
		return fmt.Errorf("not the body the planner writes for %s (%s)", c.step.Kind, clip(compactJSON(planned), 200))
	}
	return nil
}

// sameJSON reports whether two JSON texts hold the same value (member order aside).
func sameJSON(a, b []byte) bool {
	x, errA := decodeValue(a)
	y, errB := decodeValue(b)
	return errA == nil && errB == nil && reflect.DeepEqual(x, y)
}

func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func checkPausedRule(c bodyCheck) error {
	return c.want(pausedRuleBody(c.obj.(inventory.FirewallRule)))
}

func checkDisabledRateLimit(c bodyCheck) error {
	return c.want(disabledRateLimitBody(c.obj.(inventory.RateLimit)))
}

func checkPausedOverride(c bodyCheck) error {
	return c.want(pausedOverrideBody(c.obj.(inventory.WAFOverride)))
}

func checkWAFOff(c bodyCheck) error { return c.want(settingBody("waf", "off")) }

func checkMobileRedirectOff(c bodyCheck) error {
	s, ok := c.zone.Setting("mobile_redirect")
	if !ok {
		return errors.New("the snapshot holds no mobile_redirect setting for this zone")
	}
	body, ok := mobileRedirectOffBody(s.Value)
	if !ok {
		return errors.New("the snapshot's mobile_redirect has no mobile subdomain: the planner turns nothing off")
	}
	return c.want(body)
}

func checkClearEmail(c bodyCheck) error { return c.want(clearEmailBody) }

func checkSRVPatch(c bodyCheck) error {
	rec := c.obj.(inventory.DNSRecord)
	body, ok := srvFixBody(rec, c.zone.Zone.Name)
	if !ok {
		return errors.New("the planner writes no SRV fix for this record (no deprecated data fields, or a name conflict a person decides)")
	}
	return c.want(body)
}

func checkAccountDNSPatch(c bodyCheck) error {
	st := c.account.Account.Settings
	if st == nil {
		return errors.New("the snapshot's account has no settings to carry over")
	}
	target, _ := nameserverTarget(st)
	if target == "" {
		return errors.New("the account's default_nameservers has no known mapping: the planner writes no PATCH")
	}
	return c.want(accountNameserversBody(target))
}

// objectOfStep is the snapshot object a create step names by its id's suffix
// ("access-app.create:<bookmark id>").
func objectOfStep(c bodyCheck, param string) (any, error) {
	_, id, ok := strings.Cut(c.step.ID, ":")
	if !ok {
		return nil, fmt.Errorf("step id %q names no object", c.step.ID)
	}
	obj, found := pathObjects[param](c.zone, c.account, id)
	if !found {
		return nil, fmt.Errorf("the snapshot holds no %s %s in this account", strings.ReplaceAll(param, "_", " "), id)
	}
	return obj, nil
}

func checkPoolPolicy(c bodyCheck) error {
	obj, err := objectOfStep(c, "pool")
	if err != nil {
		return err
	}
	return c.want(poolPolicyBody(obj.(inventory.LoadBalancerPool)))
}

func checkBookmarkApp(c bodyCheck) error {
	obj, err := objectOfStep(c, "bookmark")
	if err != nil {
		return err
	}
	return c.want(bookmarkAppBody(obj.(inventory.AccessBookmark)))
}

// checkDNSSettingsPatch: the zone DNS settings PATCH writes booleans of the fields the
// deprecated endpoints reflect (dnsFields), nothing else.
func checkDNSSettingsPatch(c bodyCheck) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(c.body, &m); err != nil || len(m) == 0 {
		return errors.New("want an object of DNS settings fields")
	}
	for k, v := range m {
		if !slices.ContainsFunc(dnsFields, func(f dnsField) bool { return f.field == k }) {
			return fmt.Errorf("member %q is not a field the planner writes", k)
		}
		if s := string(bytes.TrimSpace(v)); s != "true" && s != "false" {
			return fmt.Errorf("member %q must be true or false", k)
		}
	}
	return nil
}

// checkEntrypointBody: the PUT creating an entry point holds exactly the target's rules,
// and the snapshot has no entry point of the phase (a PUT would replace its rules).
func checkEntrypointBody(c bodyCheck) error {
	phase := vocab.Phase(strings.Split(strings.TrimPrefix(c.step.Path, "/"), "/")[4])
	if _, exists := c.zone.Ruleset(phase); exists {
		return fmt.Errorf("the zone has a %s entry point in the snapshot: a PUT would replace its rules", phase)
	}
	if c.target == nil {
		return fmt.Errorf("the plan has no target for phase %s", phase)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(c.body, &body); err != nil || len(body) != 1 || body["rules"] == nil {
		return errors.New(`want {"rules": [...]}`)
	}
	var rules []json.RawMessage
	if err := json.Unmarshal(body["rules"], &rules); err != nil {
		return errors.New("rules: want an array of rules")
	}
	if len(rules) != len(c.target.Rules) {
		return fmt.Errorf("%d rules, the target has %d", len(rules), len(c.target.Rules))
	}
	for i, raw := range rules {
		if !sameRuleJSON(raw, c.target.Rules[i]) {
			return fmt.Errorf("rule %d is not the target's rule %d", i+1, i+1)
		}
	}
	return nil
}

// checkAddRuleBody: a rule POSTed into an existing entry point is the target's rule at the
// position it names.
func checkAddRuleBody(c bodyCheck) error {
	if c.target == nil || c.target.RulesetID != c.params["ruleset"] {
		return fmt.Errorf("no target of the plan has ruleset %s", c.params["ruleset"])
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(c.body, &body); err != nil {
		return errors.New("want a rule object")
	}
	var pos struct {
		Index int `json:"index"`
	}
	dec := json.NewDecoder(bytes.NewReader(body["position"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pos); err != nil || pos.Index < 1 || pos.Index > len(c.target.Rules) {
		return fmt.Errorf(`position: want {"index": N} with N from 1 to %d`, len(c.target.Rules))
	}
	delete(body, "position")
	if !sameRuleJSON(mustJSON(body), c.target.Rules[pos.Index-1]) {
		return fmt.Errorf("not the target's rule %d", pos.Index)
	}
	return nil
}

// sameRuleJSON reports whether a rule as a step sends it is the target's rule: the same
// once the members the service computes are left out.
func sameRuleJSON(raw, target json.RawMessage) bool {
	var r inventory.RulesetRule
	if err := json.Unmarshal(raw, &r); err != nil {
		return false
	}
	return sameJSON(targetRule(r), target)
}

// rulesetPhases are the phases whose entry points a plan may target.
var rulesetPhases = []vocab.Phase{vocab.PhaseCustomRules, vocab.PhaseRateLimiting, vocab.PhaseManaged, vocab.PhaseDynamicRedirect}

// checkTargets holds the scope's targets: a phase the planner targets, once; the entry
// point's id as the snapshot holds it; its rules there at the scan still there, in order;
// no more rules, nor larger ones, than an entry point takes.
func (sc *scopeCheck) checkTargets() {
	seen := map[vocab.Phase]bool{}
	for _, t := range sc.targets {
		at := "target " + string(t.Phase)
		if !slices.Contains(rulesetPhases, t.Phase) || seen[t.Phase] || sc.zone == nil {
			sc.refuse(at, "not a phase the planner targets, or targeted twice")
			continue
		}
		seen[t.Phase] = true
		existing, ok := sc.zone.Ruleset(t.Phase)
		if id := map[bool]string{true: existing.ID}[ok]; t.RulesetID != id {
			sc.refuse(at, "ruleset id %q, the snapshot's entry point is %q", t.RulesetID, id)
			continue
		}
		if len(t.Rules) > maxEntrypointBody/maxRuleBody {
			sc.refuse(at, "%d rules: an entry point takes at most %d", len(t.Rules), maxEntrypointBody/maxRuleBody)
			continue
		}
		if why := keptInTarget(existing.Rules, t.Rules); why != "" {
			sc.refuse(at, "%s", why)
		}
	}
}

// keptInTarget checks that the entry point's rules at the scan are in the target, in order,
// and that no rule is larger than the planner writes.
func keptInTarget(existing []inventory.RulesetRule, rules []json.RawMessage) string {
	k := 0
	for i, raw := range rules {
		if len(raw) > maxRuleBody {
			return fmt.Sprintf("rule %d is %d bytes; the planner writes at most %d", i+1, len(raw), maxRuleBody)
		}
		if k < len(existing) && sameJSON(targetRule(existing[k]), raw) {
			k++
		}
	}
	if k < len(existing) {
		return fmt.Sprintf("rule %s of the entry point at the scan is not kept in place", existing[k].ID)
	}
	return ""
}
