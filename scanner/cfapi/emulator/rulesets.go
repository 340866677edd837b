package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// knownPhases are the zone-level phases of the ruleset engine.
var knownPhases = map[vocab.Phase]bool{
	"ddos_l7": true, "http_config_settings": true, "http_custom_errors": true, "http_log_custom_fields": true,
	vocab.PhaseRateLimiting: true, "http_request_cache_settings": true, vocab.PhaseDynamicRedirect: true,
	vocab.PhaseCustomRules: true, vocab.PhaseManaged: true, "http_request_late_transform": true, "http_request_origin": true,
	"http_request_redirect": true, "http_request_sanitize": true, "http_request_sbfm": true,
	"http_request_transform": true, "http_response_compression": true, "http_response_firewall_managed": true,
	"http_response_headers_transform": true,
}

// Actions allowed per phase for the phases the migration writes.
var phaseActions = map[vocab.Phase][]vocab.Action{
	vocab.PhaseCustomRules:  {vocab.ActionBlock, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionLog, vocab.ActionManagedChallenge, vocab.ActionSkip},
	vocab.PhaseRateLimiting: {vocab.ActionBlock, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionLog, vocab.ActionManagedChallenge},
	vocab.PhaseManaged:      {vocab.ActionExecute, vocab.ActionLog, vocab.ActionSkip},
}

// managedRulesets are the account-independent managed rulesets a zone can deploy
// (domain-facts "Previous-version WAF"); GET /zones/:id/rulesets lists them.
var managedRulesets = []inventory.Ruleset{
	{ID: "efb7b8c949ac4650a09736fc376e9aee", Name: "Cloudflare Managed Ruleset", Description: "Created by the Cloudflare security team, this ruleset is designed to provide fast and effective protection for all your applications.", Kind: "managed", Phase: vocab.PhaseManaged, Version: "1"},
	{ID: "4814384a9e5d4991b9815dcfc25d2f1f", Name: "Cloudflare OWASP Core Ruleset", Description: "Cloudflare's implementation of the Open Web Application Security Project (OWASP) ModSecurity Core Rule Set.", Kind: "managed", Phase: vocab.PhaseManaged, Version: "1"},
	{ID: "77454fe2d30c4220b5701f6fdfb893ba", Name: "Cloudflare Free Managed Ruleset", Description: "Free managed ruleset for all plans.", Kind: "managed", Phase: vocab.PhaseManaged, Version: "1"},
}

// Allowed rate limiting rule values (domain-facts "New rate limiting rule").
var (
	rateLimitPeriods     = map[int]bool{10: true, 60: true, 120: true, 300: true, 600: true, 3600: true}
	rateLimitMitigations = map[int]bool{0: true, 10: true, 60: true, 120: true, 300: true, 600: true, 3600: true, 86400: true}
)

// rulesetRuleQuota is how many rules a phase's entry point may hold on a plan (0 = no quota):
// custom rules count every rule of the phase.
func rulesetRuleQuota(phase vocab.Phase, plan string) int {
	return inventory.PhaseRulesQuota(phase, plan)
}

// entrypoint returns the zone's entry point of a phase.
func (z *zoneState) entrypoint(phase vocab.Phase) *inventory.Ruleset {
	for _, rs := range z.rulesets {
		if rs.Phase == phase && (rs.Kind == "" || rs.Kind == "zone") {
			return rs
		}
	}
	return nil
}

func (z *zoneState) ruleset(id string) *inventory.Ruleset {
	for _, rs := range z.rulesets {
		if rs.ID == id {
			return rs
		}
	}
	return nil
}

// checkRulesetRule validates one rule for a phase; the bool reports a plan feature error.
func (c *call) checkRulesetRule(phase vocab.Phase, r *inventory.RulesetRule) (*APIError, bool) {
	if r.Action == "" {
		return &APIError{Code: CodeInvalid, Message: "rule action is required"}, false
	}
	if allowed, known := phaseActions[phase]; known && !slices.Contains(allowed, r.Action) {
		return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("action %q is not allowed in phase %s; want one of %s", r.Action, phase, vocab.Join(allowed, ", "))}, false
	}
	if strings.TrimSpace(r.Expression) == "" {
		return &APIError{Code: CodeBlankExpression, Message: "rule expression must not be blank"}, false
	}
	if err := c.s.validate(r.Expression); err != nil {
		return &APIError{Code: CodeInvalidExpression, Message: err.Error()}, false
	}
	params := map[string]json.RawMessage{}
	if len(r.ActionParameters) > 0 && string(r.ActionParameters) != "null" {
		if json.Unmarshal(r.ActionParameters, &params) != nil {
			return &APIError{Code: CodeInvalid, Message: "action_parameters must be an object"}, false
		}
	}
	switch r.Action {
	case vocab.ActionSkip:
		if len(params) == 0 {
			return &APIError{Code: CodeInvalid, Message: `a skip rule needs action_parameters: {"ruleset": "current"}, "phases", "products" or "rules"`}, false
		}
		if raw, found := params["ruleset"]; found {
			var v string
			if json.Unmarshal(raw, &v) != nil || v != "current" {
				return &APIError{Code: CodeInvalid, Message: `action_parameters.ruleset must be "current"`}, false
			}
		}
	case vocab.ActionExecute:
		var id string
		if raw, found := params["id"]; !found || json.Unmarshal(raw, &id) != nil || id == "" {
			return &APIError{Code: CodeInvalid, Message: "an execute rule needs action_parameters.id (the ruleset to execute)"}, false
		}
	}
	if phase == vocab.PhaseRateLimiting {
		if e := checkRateLimitParams(r.RateLimit); e != nil {
			return e, false
		}
	}
	if e := c.zone.featureError(r.Action, r.Expression); e != nil {
		return e, true
	}
	return nil, false
}

// checkRateLimitParams validates the ratelimit object of a rate limiting rule.
func checkRateLimitParams(raw json.RawMessage) *APIError {
	var rl struct {
		Characteristics   []string `json:"characteristics"`
		Period            *int     `json:"period"`
		RequestsPerPeriod *int     `json:"requests_per_period"`
		ScorePerPeriod    *int     `json:"score_per_period"`
		MitigationTimeout *int     `json:"mitigation_timeout"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &rl) != nil {
		return &APIError{Code: CodeInvalid, Message: "a rate limiting rule needs a ratelimit object"}
	}
	if !contains(rl.Characteristics, "cf.colo.id") {
		return &APIError{Code: CodeInvalid, Message: "ratelimit.characteristics must include cf.colo.id"}
	}
	if rl.Period == nil || !rateLimitPeriods[*rl.Period] {
		return &APIError{Code: CodeInvalid, Message: "ratelimit.period must be one of 10, 60, 120, 300, 600, 3600"}
	}
	if (rl.RequestsPerPeriod == nil || *rl.RequestsPerPeriod < 1) && (rl.ScorePerPeriod == nil || *rl.ScorePerPeriod < 1) {
		return &APIError{Code: CodeInvalid, Message: "ratelimit.requests_per_period must be a positive integer"}
	}
	if rl.MitigationTimeout != nil && !rateLimitMitigations[*rl.MitigationTimeout] {
		return &APIError{Code: CodeInvalid, Message: "ratelimit.mitigation_timeout must be one of 0, 10, 60, 120, 300, 600, 3600, 86400"}
	}
	return nil
}

// prepareRule fills the members the service sets on a stored rule.
func (c *call) prepareRule(r *inventory.RulesetRule, keepID bool) {
	if !keepID || r.ID == "" {
		r.ID = c.st.newID("ruleset_rule")
	}
	if r.Enabled == nil {
		r.Enabled = boolPtr(true)
	}
	if r.Ref == "" {
		r.Ref = r.ID
	}
	r.Version = "1"
	if r.Extra == nil {
		r.Extra = inventory.Extra{}
	}
	ts, _ := json.Marshal(c.stamp())
	r.Extra["last_updated"] = ts
}

// rulesetDefaults gives every rule a ref, its id when none was sent, as the API does.
func rulesetDefaults(rs *inventory.Ruleset) {
	for i := range rs.Rules {
		if rs.Rules[i].Ref == "" {
			rs.Rules[i].Ref = rs.Rules[i].ID
		}
	}
}

// rulesetReply answers a ruleset as the API does: with its description, "" when it has none
// (the Terraform provider reads it back, and a missing one is a change on every plan).
func rulesetReply(rs *inventory.Ruleset) *reply {
	var m map[string]json.RawMessage
	data, err := json.Marshal(rs)
	if err != nil || json.Unmarshal(data, &m) != nil {
		return ok(deepCopy(*rs))
	}
	if _, has := m["description"]; !has {
		m["description"] = json.RawMessage(`""`)
	}
	return ok(m)
}

// bumpVersion increments a ruleset's version and stamps it.
func (c *call) bumpVersion(rs *inventory.Ruleset) {
	n, _ := strconv.Atoi(rs.Version)
	rs.Version = strconv.Itoa(n + 1)
	rs.LastUpdated = c.stamp()
}

// rulesetFailure picks the status of rule errors: 403 when a plan feature is missing.
func rulesetFailure(errs []APIError, feature bool) *reply {
	if feature {
		return failErrors(http.StatusForbidden, errs...)
	}
	return failErrors(http.StatusBadRequest, errs...)
}

// position is where POST .../rules puts a new rule: before or after a rule id ("" means the
// start or the end), or at a 1-based index.
type position struct {
	Before *string `json:"before"`
	After  *string `json:"after"`
	Index  *int    `json:"index"`
}

// insertAt returns the index at which the new rule goes.
func (p *position) insertAt(rules []inventory.RulesetRule) (int, *APIError) {
	if p == nil {
		return len(rules), nil
	}
	set := 0
	for _, b := range []bool{p.Before != nil, p.After != nil, p.Index != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		return 0, &APIError{Code: CodeInvalid, Message: "position takes exactly one of before, after and index"}
	}
	find := func(id string) int {
		for i, r := range rules {
			if r.ID == id {
				return i
			}
		}
		return -1
	}
	switch {
	case p.Before != nil:
		if *p.Before == "" {
			return 0, nil
		}
		if i := find(*p.Before); i >= 0 {
			return i, nil
		}
		return 0, &APIError{Code: CodeInvalid, Message: fmt.Sprintf("position.before: no rule %q in this ruleset", *p.Before)}
	case p.After != nil:
		if *p.After == "" {
			return len(rules), nil
		}
		if i := find(*p.After); i >= 0 {
			return i + 1, nil
		}
		return 0, &APIError{Code: CodeInvalid, Message: fmt.Sprintf("position.after: no rule %q in this ruleset", *p.After)}
	}
	if *p.Index < 1 || *p.Index > len(rules)+1 {
		return 0, &APIError{Code: CodeInvalid, Message: fmt.Sprintf("position.index must be between 1 and %d", len(rules)+1)}
	}
	return *p.Index - 1, nil
}

// rulesetRoutes registers the ruleset engine endpoints a migration uses.
func (s *Server) rulesetRoutes() {
	s.handle("GET", "/zones/:zone_id/rulesets", func(c *call) *reply {
		out := []inventory.Ruleset{}
		for _, rs := range c.zone.rulesets {
			meta := deepCopy(*rs)
			meta.Rules = nil // the list carries no rules, like the real API
			out = append(out, meta)
		}
		out = append(out, managedRulesets...)
		return listReply(c, out, pageOther)
	})
	s.handle("GET", "/zones/:zone_id/rulesets/:ruleset_id", func(c *call) *reply {
		if rs := c.zone.ruleset(c.params["ruleset_id"]); rs != nil {
			return rulesetReply(rs)
		}
		for _, rs := range managedRulesets {
			if rs.ID == c.params["ruleset_id"] {
				return ok(rs)
			}
		}
		return notFound("ruleset", c.params["ruleset_id"])
	})
	s.handle("GET", "/zones/:zone_id/rulesets/phases/:phase/entrypoint", func(c *call) *reply {
		phase := vocab.Phase(c.params["phase"])
		if !knownPhases[phase] {
			return invalid("unknown phase %q", phase)
		}
		rs := c.zone.entrypoint(phase)
		if rs == nil {
			return fail(http.StatusNotFound, CodeNoEntrypoint, "could not find entrypoint ruleset in the %s phase", phase)
		}
		return rulesetReply(rs)
	})
	s.handle("PUT", "/zones/:zone_id/rulesets/phases/:phase/entrypoint", (*call).putEntrypoint)
	s.handle("POST", "/zones/:zone_id/rulesets", (*call).createRuleset)
	s.handle("PUT", "/zones/:zone_id/rulesets/:ruleset_id", (*call).updateRuleset)
	s.handle("DELETE", "/zones/:zone_id/rulesets/:ruleset_id", (*call).deleteRuleset)
	s.handle("POST", "/zones/:zone_id/rulesets/:ruleset_id/rules", (*call).addRulesetRule)
	s.handle("PATCH", "/zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id", (*call).patchRulesetRule)
	s.handle("DELETE", "/zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id", func(c *call) *reply {
		rs := c.zone.ruleset(c.params["ruleset_id"])
		if rs == nil {
			return notFound("ruleset", c.params["ruleset_id"])
		}
		for i, r := range rs.Rules {
			if r.ID == c.params["rule_id"] {
				rs.Rules = append(rs.Rules[:i], rs.Rules[i+1:]...)
				c.bumpVersion(rs)
				return rulesetReply(rs)
			}
		}
		return notFound("rule", c.params["rule_id"])
	})
}

// putEntrypoint replaces every rule of a phase's entry point, creating it when missing.
func (c *call) putEntrypoint() *reply {
	phase := vocab.Phase(c.params["phase"])
	if !knownPhases[phase] {
		return invalid("unknown phase %q", phase)
	}
	var in struct {
		Name        string                  `json:"name"`
		Description string                  `json:"description"`
		Rules       []inventory.RulesetRule `json:"rules"`
	}
	if rep := c.decode(&in); rep != nil {
		return rep
	}
	if rep := c.checkRules(phase, in.Rules); rep != nil {
		return rep
	}
	rs := c.zone.entrypoint(phase)
	if rs == nil {
		rs = &inventory.Ruleset{ID: c.st.newID("ruleset"), Name: "default", Kind: "zone", Phase: phase, Version: "0"}
		c.zone.rulesets = append(c.zone.rulesets, rs)
	}
	c.replaceRules(rs, in.Name, in.Description, in.Rules)
	return rulesetReply(rs)
}

// checkRules validates every rule of a whole rule list of a phase, and the phase's quota.
func (c *call) checkRules(phase vocab.Phase, rules []inventory.RulesetRule) *reply {
	var errs []APIError
	feature := false
	for i := range rules {
		if e, f := c.checkRulesetRule(phase, &rules[i]); e != nil {
			errs = append(errs, indexed(i, len(rules), *e))
			feature = feature || f
		}
	}
	if q := rulesetRuleQuota(phase, c.zone.plan()); q > 0 && len(rules) > q {
		errs = append(errs, APIError{Code: CodeQuotaExceeded, Message: fmt.Sprintf("rule quota exceeded: the %s plan allows %d rules in phase %s, the request has %d", c.zone.plan(), q, phase, len(rules))})
	}
	if len(errs) > 0 {
		return rulesetFailure(errs, feature)
	}
	return nil
}

// replaceRules makes rules the ruleset's whole list (rules sent with an id or a ref it holds
// keep that rule's id), with the name and description when given.
func (c *call) replaceRules(rs *inventory.Ruleset, name, description string, rules []inventory.RulesetRule) {
	// A rule sent with the id or the ref of a rule the ruleset holds is that rule: it keeps
	// its id (the ref is the rule's stable name, its id by default).
	existing, byRef := map[string]bool{}, map[string]string{}
	for _, r := range rs.Rules {
		existing[r.ID] = true
		if r.Ref != "" {
			byRef[r.Ref] = r.ID
		}
	}
	for i := range rules {
		if id, ok := byRef[rules[i].Ref]; ok && rules[i].ID == "" && rules[i].Ref != "" {
			rules[i].ID = id
		}
		c.prepareRule(&rules[i], existing[rules[i].ID])
	}
	rs.Rules = rules
	if name != "" {
		rs.Name = name
	}
	if description != "" {
		rs.Description = description
	}
	rulesetDefaults(rs)
	c.bumpVersion(rs)
}

// addRulesetRule adds one rule to a ruleset at the requested position.
func (c *call) addRulesetRule() *reply {
	rs := c.zone.ruleset(c.params["ruleset_id"])
	if rs == nil {
		return notFound("ruleset", c.params["ruleset_id"])
	}
	var r inventory.RulesetRule
	if rep := c.decode(&r); rep != nil {
		return rep
	}
	var pos struct {
		Position *position `json:"position"`
	}
	if rep := c.decode(&pos); rep != nil {
		return rep
	}
	delete(r.Extra, "position")
	if e, f := c.checkRulesetRule(rs.Phase, &r); e != nil {
		return rulesetFailure([]APIError{*e}, f)
	}
	if q := rulesetRuleQuota(rs.Phase, c.zone.plan()); q > 0 && len(rs.Rules)+1 > q {
		return fail(http.StatusBadRequest, CodeQuotaExceeded, "rule quota exceeded: the %s plan allows %d rules in phase %s and the ruleset has %d", c.zone.plan(), q, rs.Phase, len(rs.Rules))
	}
	at, e := pos.Position.insertAt(rs.Rules)
	if e != nil {
		return failErrors(http.StatusBadRequest, *e)
	}
	c.prepareRule(&r, false)
	rules := make([]inventory.RulesetRule, 0, len(rs.Rules)+1)
	rules = append(rules, rs.Rules[:at]...)
	rules = append(rules, r)
	rules = append(rules, rs.Rules[at:]...)
	rs.Rules = rules
	c.bumpVersion(rs)
	return rulesetReply(rs)
}

// patchRulesetRule changes one rule (members sent replace stored ones), optionally moving it.
func (c *call) patchRulesetRule() *reply {
	rs := c.zone.ruleset(c.params["ruleset_id"])
	if rs == nil {
		return notFound("ruleset", c.params["ruleset_id"])
	}
	k := -1
	for i, r := range rs.Rules {
		if r.ID == c.params["rule_id"] {
			k = i
		}
	}
	if k < 0 {
		return notFound("rule", c.params["rule_id"])
	}
	var changes map[string]json.RawMessage
	if rep := c.decode(&changes); rep != nil {
		return rep
	}
	var pos *position
	if raw, found := changes["position"]; found {
		pos = &position{}
		if json.Unmarshal(raw, pos) != nil {
			return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: position")
		}
		delete(changes, "position")
	}
	r, err := mergeJSON(rs.Rules[k], changes)
	if err != nil {
		return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
	}
	r.ID = rs.Rules[k].ID
	if e, f := c.checkRulesetRule(rs.Phase, &r); e != nil {
		return rulesetFailure([]APIError{*e}, f)
	}
	n, _ := strconv.Atoi(r.Version)
	r.Version = strconv.Itoa(n + 1)
	rest := append(append([]inventory.RulesetRule{}, rs.Rules[:k]...), rs.Rules[k+1:]...)
	at := k
	if pos != nil {
		var e *APIError
		if at, e = pos.insertAt(rest); e != nil {
			return failErrors(http.StatusBadRequest, *e)
		}
	}
	rules := make([]inventory.RulesetRule, 0, len(rs.Rules))
	rules = append(rules, rest[:at]...)
	rules = append(rules, r)
	rules = append(rules, rest[at:]...)
	rs.Rules = rules
	c.bumpVersion(rs)
	return rulesetReply(rs)
}
