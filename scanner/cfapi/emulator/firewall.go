package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Firewall rule vocabulary (domain-facts "Firewall rule and filter objects").
var (
	firewallActions  = []vocab.Action{vocab.ActionAllow, vocab.ActionBlock, vocab.ActionBypass, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionLog, vocab.ActionManagedChallenge}
	firewallProducts = []string{"bic", "hot", "rateLimit", "securityLevel", "uaBlock", "waf", "zoneLockdown"}
)

// firewallRuleQuota is the number of firewall rules a zone may hold, per plan.
func firewallRuleQuota(plan string) int { return inventory.FirewallRulesQuota(plan) }

// filterInput is a filter as a request sends it; pointers tell absent from zero.
type filterInput struct {
	ID          *string `json:"id"`
	Expression  *string `json:"expression"`
	Paused      *bool   `json:"paused"`
	Description *string `json:"description"`
	Ref         *string `json:"ref"`
}

// ruleInput is a firewall rule as a request sends it. Priority and Products are raw so that
// an explicit null is told apart from an absent member.
type ruleInput struct {
	ID          *string         `json:"id"`
	Filter      *filterInput    `json:"filter"`
	Action      *string         `json:"action"`
	Priority    json.RawMessage `json:"priority"`
	Paused      *bool           `json:"paused"`
	Description *string         `json:"description"`
	Ref         *string         `json:"ref"`
	Products    json.RawMessage `json:"products"`
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// decodeList reads a JSON array body; a single object is refused like the real API does for
// these collection endpoints.
func decodeList[T any](c *call) ([]T, *reply) {
	body := bytes.TrimSpace(c.body)
	if len(body) > 0 && body[0] != '[' {
		return nil, fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: this endpoint expects a JSON array")
	}
	var out []T
	if rep := c.decode(&out); rep != nil {
		return nil, rep
	}
	if len(out) == 0 {
		return nil, invalid("the request holds no items")
	}
	return out, nil
}

// idsFromRequest reads the ids of a bulk DELETE: repeated ?id= parameters, or a JSON body
// [{"id": ...}] or {"ids": [...]}.
func idsFromRequest(c *call) ([]string, *reply) {
	ids := append([]string(nil), c.query["id"]...)
	body := bytes.TrimSpace(c.body)
	if len(body) > 0 {
		if body[0] == '[' {
			var items []struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(body, &items); err != nil {
				return nil, fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
			}
			for _, it := range items {
				ids = append(ids, it.ID)
			}
		} else {
			var obj struct {
				IDs []string `json:"ids"`
			}
			if err := json.Unmarshal(body, &obj); err != nil {
				return nil, fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
			}
			ids = append(ids, obj.IDs...)
		}
	}
	if len(ids) == 0 {
		return nil, invalid("no ids given: pass ?id=ID (repeatable) or a body [{\"id\": ID}]")
	}
	for _, id := range ids {
		if id == "" {
			return nil, invalid("an empty id was given")
		}
	}
	return ids, nil
}

// checkFilterExpression validates a filter expression: blank is code 20125, a parse error
// is CodeInvalidExpression with the validator's message.
func (c *call) checkFilterExpression(expr string) *APIError {
	if strings.TrimSpace(expr) == "" {
		return &APIError{Code: CodeBlankExpression, Message: "filter expression must not be blank"}
	}
	if err := c.s.validate(expr); err != nil {
		return &APIError{Code: CodeInvalidExpression, Message: err.Error()}
	}
	return nil
}

// duplicateFilter finds another filter of the zone with the same expression.
func (z *zoneState) duplicateFilter(expr, exceptID string) *filterState {
	for _, f := range z.filters {
		if f.f.ID != exceptID && f.f.Expression == expr {
			return f
		}
	}
	return nil
}

// checkFilterText checks description and ref lengths.
func checkFilterText(f *inventory.Filter) *APIError {
	if len(f.Description) > 500 {
		return &APIError{Code: CodeInvalid, Message: "filter description is longer than 500 characters"}
	}
	if len(f.Ref) > 50 {
		return &APIError{Code: CodeInvalid, Message: "filter ref is longer than 50 characters"}
	}
	return nil
}

// applyRuleInput merges the members present in in over r (the filter is handled by the caller).
func applyRuleInput(r *inventory.FirewallRule, in ruleInput) *APIError {
	if in.Action != nil {
		r.Action = vocab.Action(*in.Action)
	}
	if in.Paused != nil {
		r.Paused = *in.Paused
	}
	if in.Description != nil {
		r.Description = *in.Description
	}
	if in.Ref != nil {
		r.Ref = *in.Ref
	}
	if len(in.Priority) > 0 {
		if string(in.Priority) == "null" {
			r.Priority = nil
		} else {
			var p int64
			if err := json.Unmarshal(in.Priority, &p); err != nil {
				return &APIError{Code: CodeInvalid, Message: "priority must be an integer or null"}
			}
			if p < 0 || p > 2147483647 {
				return &APIError{Code: CodeInvalid, Message: "priority must be between 0 and 2147483647"}
			}
			r.Priority = intPtr(int(p))
		}
	}
	if len(in.Products) > 0 {
		if string(in.Products) == "null" {
			r.Products = nil
		} else {
			var ps []string
			if err := json.Unmarshal(in.Products, &ps); err != nil {
				return &APIError{Code: CodeInvalid, Message: "products must be an array of strings"}
			}
			r.Products = ps
		}
	}
	return nil
}

// validateRule checks a complete rule: the action, products only with bypass (and required
// there), and text lengths.
func validateRule(r *inventory.FirewallRule) *APIError {
	if r.Action == "" {
		return &APIError{Code: CodeInvalid, Message: "firewall rule action is required"}
	}
	if !slices.Contains(firewallActions, r.Action) {
		return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("unknown firewall rule action %q; want one of %s", r.Action, vocab.Join(firewallActions, ", "))}
	}
	if r.Action == vocab.ActionBypass {
		if len(r.Products) == 0 {
			return &APIError{Code: CodeInvalid, Message: "a bypass rule needs products (one or more of " + strings.Join(firewallProducts, ", ") + ")"}
		}
		for _, p := range r.Products {
			if !contains(firewallProducts, p) {
				return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("unknown product %q; want one of %s", p, strings.Join(firewallProducts, ", "))}
			}
		}
	} else if len(r.Products) > 0 {
		return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("products are only allowed with the bypass action, not %q", r.Action)}
	}
	if len(r.Description) > 500 {
		return &APIError{Code: CodeInvalid, Message: "firewall rule description is longer than 500 characters"}
	}
	if len(r.Ref) > 50 {
		return &APIError{Code: CodeInvalid, Message: "firewall rule ref is longer than 50 characters"}
	}
	return nil
}

// featureError says why a rule cannot be created on the zone's plan, or nil: the log action
// needs Enterprise, the regex operator (matches, ~) Business or Enterprise.
func (z *zoneState) featureError(action vocab.Action, expr string) *APIError {
	plan := z.plan()
	if action == vocab.ActionLog && planRank(plan) < planRank(inventory.PlanEnterprise) {
		return &APIError{Code: CodeFeatureUnavailable, Message: fmt.Sprintf("the log action is not available on the %s plan (Enterprise only)", plan)}
	}
	if usesRegex(expr) && planRank(plan) < planRank(inventory.PlanBusiness) {
		return &APIError{Code: CodeFeatureUnavailable, Message: fmt.Sprintf("the regular expression operator (matches, ~) is not available on the %s plan (Business and Enterprise only)", plan)}
	}
	return nil
}

// indexed prefixes an error with the position of the item it concerns in a bulk request.
func indexed(i, n int, e APIError) APIError {
	if n > 1 {
		e.Message = fmt.Sprintf("item %d: %s", i, e.Message)
	}
	return e
}

// createFirewallRules is POST /zones/:zone_id/firewall/rules: each item carries a filter
// either inline ({"expression": ...}, the combined call) or by reference ({"id": ...}, the
// two-call sequence). The spec's rules: (1) an inline filter is created first, then the rule;
// (2) when a filter or a rule is invalid, nothing is created; (3) when the rule quota would be
// exceeded, or (errors table) a rule asks for a feature the plan lacks, the inline filters stay
// and no rule is created, and the error says so; (4) the combined flow never modifies or
// deletes the filters it created (and the filters endpoints' PUT refuses them); the filters
// API deletes one once no rule refers to it (domain-facts "Deleting").
func (c *call) createFirewallRules() *reply {
	items, rep := decodeList[ruleInput](c)
	if rep != nil {
		return rep
	}
	z := c.zone
	n := len(items)
	rules, inline, errs := c.checkRuleItems(items)
	if len(errs) > 0 {
		return failErrors(http.StatusBadRequest, errs...)
	}
	// Rule 1: the filters first.
	created := c.createInlineFilters(rules, inline)
	// Rule 3 and the unavailable feature: the filters stay, no rule is created.
	if errs, status := z.ruleRefusals(rules); len(errs) > 0 {
		return refusedRules(status, errs, created)
	}
	out := make([]inventory.FirewallRule, 0, n)
	for i := range rules {
		r := rules[i]
		r.ID = c.st.newID("firewall_rule")
		z.rules = append(z.rules, &r)
		out = append(out, z.renderRule(&r))
	}
	return ok(out)
}

// checkRuleItems turns the items of a rule creation into rules and their inline filters (nil
// where the item refers to an existing filter), with every item's errors: a request with any
// creates nothing (spec rule 2).
func (c *call) checkRuleItems(items []ruleInput) (rules []inventory.FirewallRule, inline []*inventory.Filter, errs []APIError) {
	n := len(items)
	rules = make([]inventory.FirewallRule, n)
	inline = make([]*inventory.Filter, n)
	seen := map[string]int{}
	for i, in := range items {
		r := inventory.FirewallRule{}
		if e := applyRuleInput(&r, in); e != nil {
			errs = append(errs, indexed(i, n, *e))
			continue
		}
		if e := validateRule(&r); e != nil {
			errs = append(errs, indexed(i, n, *e))
		}
		switch {
		case in.Filter == nil:
			errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "filter is required: an object with an expression, or with the id of an existing filter"}))
		case in.Filter.ID != nil && *in.Filter.ID != "":
			if c.zone.filter(*in.Filter.ID) == nil {
				errs = append(errs, indexed(i, n, APIError{Code: CodeNotFound, Message: fmt.Sprintf("filter %q not found", *in.Filter.ID)}))
			}
			r.Filter = inventory.Filter{ID: *in.Filter.ID}
		default:
			f := in.Filter.newFilter()
			errs = append(errs, c.checkNewFilter(&f, i, n, seen)...)
			inline[i] = &f
		}
		rules[i] = r
	}
	return rules, inline, errs
}

// newFilter is the filter a creation request describes; absent members stay zero.
func (in filterInput) newFilter() inventory.Filter {
	f := inventory.Filter{}
	in.applyTo(&f)
	return f
}

// applyTo merges the members present in in over f (creation and update alike).
func (in filterInput) applyTo(f *inventory.Filter) {
	if in.Expression != nil {
		f.Expression = *in.Expression
	}
	if in.Paused != nil {
		f.Paused = *in.Paused
	}
	if in.Description != nil {
		f.Description = *in.Description
	}
	if in.Ref != nil {
		f.Ref = *in.Ref
	}
}

// checkNewFilter is what is wrong with the filter of item i of n about to be created: its
// expression (invalid, the same as an existing filter's, or repeating an earlier item's: seen
// maps the request's expressions to their items) and its description and ref.
func (c *call) checkNewFilter(f *inventory.Filter, i, n int, seen map[string]int) []APIError {
	var errs []APIError
	if e := c.checkFilterExpression(f.Expression); e != nil {
		errs = append(errs, indexed(i, n, *e))
	} else if d := c.zone.duplicateFilter(f.Expression, ""); d != nil {
		errs = append(errs, indexed(i, n, APIError{Code: CodeDuplicateFilter, Message: fmt.Sprintf("a filter with this expression already exists (id %s)", d.f.ID)}))
	} else if j, dup := seen[f.Expression]; dup {
		errs = append(errs, indexed(i, n, APIError{Code: CodeDuplicateFilter, Message: fmt.Sprintf("the filter expression repeats item %d", j)}))
	}
	seen[f.Expression] = i
	if e := checkFilterText(f); e != nil {
		errs = append(errs, indexed(i, n, *e))
	}
	return errs
}

// createInlineFilters creates the inline filters of a rule creation, marked as the combined
// call's (spec rule 4), points their rules at them, and returns their ids.
func (c *call) createInlineFilters(rules []inventory.FirewallRule, inline []*inventory.Filter) []string {
	var created []string
	for i, f := range inline {
		if f == nil {
			continue
		}
		f.ID = c.st.newID("filter")
		c.zone.filters = append(c.zone.filters, &filterState{f: *f, combined: true})
		rules[i].Filter = inventory.Filter{ID: f.ID}
		created = append(created, f.ID)
	}
	return created
}

// ruleRefusals are the reasons the zone refuses valid rules, with the reply's status: a
// feature the plan lacks (403) and the rule quota (400, unless a feature error is there too).
func (z *zoneState) ruleRefusals(rules []inventory.FirewallRule) ([]APIError, int) {
	var errs []APIError
	n := len(rules)
	status := http.StatusBadRequest
	for i := range rules {
		if e := z.featureError(rules[i].Action, z.filter(rules[i].Filter.ID).f.Expression); e != nil {
			errs = append(errs, indexed(i, n, *e))
			status = http.StatusForbidden
		}
	}
	if quota := firewallRuleQuota(z.plan()); len(z.rules)+n > quota {
		errs = append(errs, APIError{Code: CodeQuotaExceeded, Message: fmt.Sprintf(
			"firewall rule quota exceeded: the %s plan allows %d firewall rules, the zone has %d and the request adds %d", z.plan(), quota, len(z.rules), n)})
	}
	return errs, status
}

// refusedRules is the reply to a refused rule creation. The inline filters were created
// anyway (spec rule 3), so the reply names them, in a message and in every error, for the
// caller to create the rules by reference later.
func refusedRules(status int, errs []APIError, created []string) *reply {
	rep := failErrors(status, errs...)
	if len(created) > 0 {
		rep.messages = []Message{{Message: fmt.Sprintf("no firewall rule was created, but these filters were: %s; create the rules with \"filter\": {\"id\": ...} once the quota or the plan allows",
			strings.Join(created, ", "))}}
		for i := range errs {
			rep.errors[i].Message += " (filters created: " + strings.Join(created, ", ") + ")"
		}
	}
	return rep
}

// findRule returns the index of a firewall rule.
func (z *zoneState) findRule(id string) int {
	for i, r := range z.rules {
		if r.ID == id {
			return i
		}
	}
	return -1
}

// updateRules applies PATCH (partial) or PUT (complete) items to existing rules, all or none.
func (c *call) updateRules(items []ruleInput, complete bool) ([]inventory.FirewallRule, *reply) {
	z := c.zone
	n := len(items)
	next := make([]inventory.FirewallRule, n)
	idx := make([]int, n)
	var errs []APIError
	featureFailed := false
	for i, in := range items {
		if in.ID == nil || *in.ID == "" {
			errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "id is required"}))
			continue
		}
		k := z.findRule(*in.ID)
		if k < 0 {
			errs = append(errs, indexed(i, n, APIError{Code: CodeNotFound, Message: fmt.Sprintf("firewall rule %q not found", *in.ID)}))
			continue
		}
		var r inventory.FirewallRule
		if complete {
			if in.Action == nil {
				errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "action is required"}))
				continue
			}
			if in.Filter == nil || in.Filter.ID == nil {
				errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "filter.id is required: refer to an existing filter"}))
				continue
			}
			r = inventory.FirewallRule{ID: *in.ID, Extra: z.rules[k].Extra}
		} else {
			r = deepCopy(*z.rules[k])
		}
		if e := applyRuleInput(&r, in); e != nil {
			errs = append(errs, indexed(i, n, *e))
			continue
		}
		if in.Filter != nil {
			if in.Filter.ID == nil || *in.Filter.ID == "" {
				errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "a rule refers to its filter by id; change an expression through the filters endpoints"}))
				continue
			}
			if z.filter(*in.Filter.ID) == nil {
				errs = append(errs, indexed(i, n, APIError{Code: CodeNotFound, Message: fmt.Sprintf("filter %q not found", *in.Filter.ID)}))
				continue
			}
			r.Filter = inventory.Filter{ID: *in.Filter.ID}
		}
		if e := validateRule(&r); e != nil {
			errs = append(errs, indexed(i, n, *e))
			continue
		}
		if e := z.featureError(r.Action, z.filter(r.Filter.ID).f.Expression); e != nil {
			errs = append(errs, indexed(i, n, *e))
			featureFailed = true
			continue
		}
		next[i], idx[i] = r, k
	}
	if len(errs) > 0 {
		status := http.StatusBadRequest
		if featureFailed {
			status = http.StatusForbidden
		}
		return nil, failErrors(status, errs...)
	}
	out := make([]inventory.FirewallRule, 0, n)
	for i := range next {
		r := next[i]
		*z.rules[idx[i]] = r
		out = append(out, z.renderRule(z.rules[idx[i]]))
	}
	return out, nil
}

// deleteRules removes rules and never their filters, whoever created them: the combined flow
// does not delete filters, and the old delete_filter_if_unused flag is gone from the API
// (domain-facts "Deleting"). A filter goes through DELETE /zones/:id/filters/:id. One rule's
// DELETE of a missing rule is a 404; the bulk DELETE skips a missing id and answers 200 for
// the others (the Firewall Rules API's endpoints page: "Returns HTTP status code 200 if a
// specified rule does not exist").
func (c *call) deleteRules(ids []string, bulk bool) ([]map[string]string, *reply) {
	z := c.zone
	var found []string
	for _, id := range ids {
		switch {
		case z.findRule(id) >= 0:
			found = append(found, id)
		case !bulk:
			return nil, notFound("firewall rule", id)
		}
	}
	out := make([]map[string]string, 0, len(found))
	for _, id := range found {
		k := z.findRule(id)
		z.rules = append(z.rules[:k], z.rules[k+1:]...)
		out = append(out, map[string]string{"id": id})
	}
	return out, nil
}

// filterReferenced reports whether a firewall rule refers to the filter.
func (z *zoneState) filterReferenced(id string) bool {
	for _, r := range z.rules {
		if r.Filter.ID == id {
			return true
		}
	}
	return false
}

// removeFilter drops a filter from the zone.
func (z *zoneState) removeFilter(id string) {
	for i, f := range z.filters {
		if f.f.ID == id {
			z.filters = append(z.filters[:i], z.filters[i+1:]...)
			return
		}
	}
}

// listFirewallRules is GET /zones/:zone_id/firewall/rules with the id, action, paused,
// description and ref filters.
func (c *call) listFirewallRules() *reply {
	var out []*inventory.FirewallRule
	q := c.query
	for _, r := range c.zone.rules {
		if v := q.Get("id"); v != "" && r.ID != v {
			continue
		}
		if v := q.Get("action"); v != "" && r.Action != vocab.Action(v) {
			continue
		}
		if v := q.Get("paused"); v != "" && strconv.FormatBool(r.Paused) != v {
			continue
		}
		if v := q.Get("description"); v != "" && !strings.Contains(strings.ToLower(r.Description), strings.ToLower(v)) {
			continue
		}
		if v := q.Get("ref"); v != "" && r.Ref != v {
			continue
		}
		out = append(out, r)
	}
	return renderPage(c, out, pageFirewall, c.zone.renderRule)
}

// MaxBulkRuleUpdate is the most firewall rules one bulk PUT or PATCH of
// /zones/:id/firewall/rules updates (the Firewall Rules API's PUT examples: "You can include
// up to 25 rules ... to update as a batch. The batch is handled as a transaction").
const MaxBulkRuleUpdate = 25

// firewallRoutes registers the firewall rules and filters endpoints.
func (s *Server) firewallRoutes() {
	s.handle("GET", "/zones/:zone_id/firewall/rules", (*call).listFirewallRules)
	s.handle("POST", "/zones/:zone_id/firewall/rules", (*call).createFirewallRules)
	bulk := func(complete bool) func(*call) *reply {
		return func(c *call) *reply {
			items, rep := decodeList[ruleInput](c)
			if rep != nil {
				return rep
			}
			if len(items) > MaxBulkRuleUpdate {
				return invalid("a bulk update takes at most %d rules, the request has %d", MaxBulkRuleUpdate, len(items))
			}
			out, rep := c.updateRules(items, complete)
			if rep != nil {
				return rep
			}
			return ok(out)
		}
	}
	s.handle("PATCH", "/zones/:zone_id/firewall/rules", bulk(false))
	s.handle("PUT", "/zones/:zone_id/firewall/rules", bulk(true))
	s.handle("DELETE", "/zones/:zone_id/firewall/rules", func(c *call) *reply {
		ids, rep := idsFromRequest(c)
		if rep != nil {
			return rep
		}
		out, rep := c.deleteRules(ids, true)
		if rep != nil {
			return rep
		}
		return ok(out)
	})
	s.handle("GET", "/zones/:zone_id/firewall/rules/:rule_id", func(c *call) *reply {
		k := c.zone.findRule(c.params["rule_id"])
		if k < 0 {
			return notFound("firewall rule", c.params["rule_id"])
		}
		return ok(c.zone.renderRule(c.zone.rules[k]))
	})
	item := func(complete bool) func(*call) *reply {
		return func(c *call) *reply {
			var in ruleInput
			if rep := c.decode(&in); rep != nil {
				return rep
			}
			id := c.params["rule_id"]
			if in.ID != nil && *in.ID != "" && *in.ID != id {
				return invalid("the id in the body (%s) differs from the id in the path (%s)", *in.ID, id)
			}
			in.ID = &id
			if c.zone.findRule(id) < 0 {
				return notFound("firewall rule", id)
			}
			out, rep := c.updateRules([]ruleInput{in}, complete)
			if rep != nil {
				return rep
			}
			return ok(out[0])
		}
	}
	s.handle("PATCH", "/zones/:zone_id/firewall/rules/:rule_id", item(false))
	s.handle("PUT", "/zones/:zone_id/firewall/rules/:rule_id", item(true))
	s.handle("DELETE", "/zones/:zone_id/firewall/rules/:rule_id", func(c *call) *reply {
		out, rep := c.deleteRules([]string{c.params["rule_id"]}, false)
		if rep != nil {
			return rep
		}
		return ok(out[0])
	})
	s.filterRoutes()
}

// filterRoutes registers the filters endpoints.
func (s *Server) filterRoutes() {
	s.handle("GET", "/zones/:zone_id/filters", (*call).listFilters)
	s.handle("POST", "/zones/:zone_id/filters", (*call).createFilters)
	s.handle("PUT", "/zones/:zone_id/filters", func(c *call) *reply {
		items, rep := decodeList[filterInput](c)
		if rep != nil {
			return rep
		}
		out, rep := c.updateFilters(items)
		if rep != nil {
			return rep
		}
		return ok(out)
	})
	s.handle("DELETE", "/zones/:zone_id/filters", func(c *call) *reply {
		ids, rep := idsFromRequest(c)
		if rep != nil {
			return rep
		}
		out, rep := c.deleteFilters(ids, true)
		if rep != nil {
			return rep
		}
		return ok(out)
	})
	s.handle("GET", "/zones/:zone_id/filters/:filter_id", func(c *call) *reply {
		f := c.zone.filter(c.params["filter_id"])
		if f == nil {
			return notFound("filter", c.params["filter_id"])
		}
		return ok(f.f)
	})
	s.handle("PUT", "/zones/:zone_id/filters/:filter_id", func(c *call) *reply {
		var in filterInput
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		id := c.params["filter_id"]
		if in.ID != nil && *in.ID != "" && *in.ID != id {
			return invalid("the id in the body (%s) differs from the id in the path (%s)", *in.ID, id)
		}
		in.ID = &id
		out, rep := c.updateFilters([]filterInput{in})
		if rep != nil {
			return rep
		}
		return ok(out[0])
	})
	s.handle("DELETE", "/zones/:zone_id/filters/:filter_id", func(c *call) *reply {
		out, rep := c.deleteFilters([]string{c.params["filter_id"]}, false)
		if rep != nil {
			return rep
		}
		return ok(out[0])
	})
	s.handle("POST", "/zones/:zone_id/filters/validate-expr", func(c *call) *reply {
		var in struct {
			Expression string `json:"expression"`
		}
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if e := c.checkFilterExpression(in.Expression); e != nil {
			return failErrors(http.StatusBadRequest, *e)
		}
		return ok(nil)
	})
}

// listFilters is GET /zones/:zone_id/filters with the id, paused, expression, description
// and ref filters.
func (c *call) listFilters() *reply {
	var out []*filterState
	q := c.query
	for _, f := range c.zone.filters {
		if v := q.Get("id"); v != "" && f.f.ID != v {
			continue
		}
		if v := q.Get("paused"); v != "" && strconv.FormatBool(f.f.Paused) != v {
			continue
		}
		if v := q.Get("expression"); v != "" && !strings.Contains(f.f.Expression, v) {
			continue
		}
		if v := q.Get("description"); v != "" && !strings.Contains(strings.ToLower(f.f.Description), strings.ToLower(v)) {
			continue
		}
		if v := q.Get("ref"); v != "" && f.f.Ref != v {
			continue
		}
		out = append(out, f)
	}
	return renderPage(c, out, pageFilters, func(f *filterState) inventory.Filter { return f.f })
}

// createFilters is POST /zones/:zone_id/filters (the first call of the two-call sequence).
func (c *call) createFilters() *reply {
	items, rep := decodeList[filterInput](c)
	if rep != nil {
		return rep
	}
	z := c.zone
	n := len(items)
	var errs []APIError
	fs := make([]inventory.Filter, n)
	seen := map[string]int{}
	for i, in := range items {
		f := in.newFilter()
		errs = append(errs, c.checkNewFilter(&f, i, n, seen)...)
		fs[i] = f
	}
	if len(errs) > 0 {
		return failErrors(http.StatusBadRequest, errs...)
	}
	for i := range fs {
		fs[i].ID = c.st.newID("filter")
		z.filters = append(z.filters, &filterState{f: fs[i]})
	}
	return ok(fs)
}

// protectedFilter is the error for PUT of a filter the combined call created.
func protectedFilter(id string) APIError {
	return APIError{Code: CodeFilterProtected, Message: fmt.Sprintf(
		"filter %s was created together with a firewall rule and cannot be modified with PUT; it can be deleted (DELETE /zones/:zone_id/filters/%s) once no firewall rule refers to it", id, id)}
}

// updateFilters is PUT of filters (all or none).
func (c *call) updateFilters(items []filterInput) ([]inventory.Filter, *reply) {
	z := c.zone
	n := len(items)
	var errs []APIError
	next := make([]inventory.Filter, n)
	targets := make([]*filterState, n)
	for i, in := range items {
		if in.ID == nil || *in.ID == "" {
			errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "id is required"}))
			continue
		}
		fs := z.filter(*in.ID)
		if fs == nil {
			errs = append(errs, indexed(i, n, APIError{Code: CodeNotFound, Message: fmt.Sprintf("filter %q not found", *in.ID)}))
			continue
		}
		if fs.combined {
			errs = append(errs, indexed(i, n, protectedFilter(fs.f.ID)))
			continue
		}
		f := deepCopy(fs.f)
		if in.Expression == nil {
			errs = append(errs, indexed(i, n, APIError{Code: CodeInvalid, Message: "expression is required"}))
			continue
		}
		in.applyTo(&f)
		if e := c.checkFilterExpression(f.Expression); e != nil {
			errs = append(errs, indexed(i, n, *e))
			continue
		}
		if d := z.duplicateFilter(f.Expression, f.ID); d != nil {
			errs = append(errs, indexed(i, n, APIError{Code: CodeDuplicateFilter, Message: fmt.Sprintf("a filter with this expression already exists (id %s)", d.f.ID)}))
			continue
		}
		if e := checkFilterText(&f); e != nil {
			errs = append(errs, indexed(i, n, *e))
			continue
		}
		next[i], targets[i] = f, fs
	}
	if len(errs) > 0 {
		return nil, failErrors(http.StatusBadRequest, errs...)
	}
	for i := range next {
		targets[i].f = next[i]
	}
	return next, nil
}

// deleteFilters removes filters (all or none); one a firewall rule refers to is refused,
// whether it was created by the combined call or through the filters API. A missing id is a
// 404 for one filter's DELETE, and skipped by the bulk DELETE (the Filters API's endpoints
// page: "Returns HTTP status code 200 if a specified filter does not exist").
func (c *call) deleteFilters(ids []string, bulk bool) ([]map[string]string, *reply) {
	z := c.zone
	var errs []APIError
	var found []string
	for _, id := range ids {
		fs := z.filter(id)
		switch {
		case fs == nil && bulk:
			continue
		case fs == nil:
			return nil, notFound("filter", id)
		case z.filterReferenced(id):
			var users []string
			for _, r := range z.rules {
				if r.Filter.ID == id {
					users = append(users, r.ID)
				}
			}
			sort.Strings(users)
			errs = append(errs, APIError{Code: CodeFilterInUse, Message: fmt.Sprintf(
				"filter %s is referenced by firewall rule(s) %s; delete the rules first", id, strings.Join(users, ", "))})
		default:
			found = append(found, id)
		}
	}
	if len(errs) > 0 {
		return nil, failErrors(http.StatusBadRequest, errs...)
	}
	out := make([]map[string]string, 0, len(found))
	for _, id := range found {
		z.removeFilter(id)
		out = append(out, map[string]string{"id": id})
	}
	return out, nil
}
