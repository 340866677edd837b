package cfapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// write sends a request with a body to the path segments and decodes the result.
func (c *Client) write(ctx context.Context, method string, body any, out any, deprecated bool, segs ...string) error {
	p, err := route(segs...)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, request{method: method, path: p, body: body, deprecated: deprecated}, out)
	return err
}

// PutEntrypointRuleset replaces ALL rules of a zone's entry point ruleset of phase (and
// creates the ruleset when missing): PUT /zones/:id/rulesets/phases/PHASE/entrypoint
// {"rules": [...]}. The caller must include the rules that already exist.
func (c *Client) PutEntrypointRuleset(ctx context.Context, zoneID string, phase vocab.Phase, rules []inventory.RulesetRule) (*inventory.Ruleset, error) {
	if rules == nil {
		rules = []inventory.RulesetRule{}
	}
	var rs inventory.Ruleset
	body := struct {
		Rules []inventory.RulesetRule `json:"rules"`
	}{rules}
	if err := c.write(ctx, http.MethodPut, body, &rs, false, "zones", zoneID, "rulesets", "phases", string(phase), "entrypoint"); err != nil {
		return nil, err
	}
	return &rs, nil
}

// RulePosition places a rule added with CreateRulesetRule: before or after a rule id, or at
// a 1-based index. Set one of the three.
type RulePosition struct {
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Index  int    `json:"index,omitempty"`
}

func (p RulePosition) validate() error {
	n := 0
	if p.Before != "" {
		n++
	}
	if p.After != "" {
		n++
	}
	if p.Index != 0 {
		n++
		if p.Index < 0 {
			return errors.New("rule position index must be 1 or more")
		}
	}
	if n != 1 {
		return errors.New("a rule position sets exactly one of before, after, index")
	}
	return nil
}

// CreateRulesetRule adds one rule to a ruleset (POST /zones/:id/rulesets/:ruleset_id/rules),
// at pos when not nil (else at the end), and returns the updated ruleset.
func (c *Client) CreateRulesetRule(ctx context.Context, zoneID, rulesetID string, rule inventory.RulesetRule, pos *RulePosition) (*inventory.Ruleset, error) {
	body, err := json.Marshal(rule)
	if err != nil {
		return nil, fmt.Errorf("encoding rule: %w", err)
	}
	if pos != nil {
		if err := pos.validate(); err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("encoding rule: %w", err)
		}
		pj, _ := json.Marshal(pos)
		m["position"] = pj
		if body, err = json.Marshal(m); err != nil {
			return nil, fmt.Errorf("encoding rule: %w", err)
		}
	}
	var rs inventory.Ruleset
	if err := c.write(ctx, http.MethodPost, json.RawMessage(body), &rs, false, "zones", zoneID, "rulesets", rulesetID, "rules"); err != nil {
		return nil, err
	}
	return &rs, nil
}

// PatchDNSSettings updates a zone's DNS settings (PATCH /zones/:id/dns_settings); body is
// encoded as JSON, e.g. {"flatten_all_cnames": true}.
func (c *Client) PatchDNSSettings(ctx context.Context, zoneID string, body any) (*inventory.DNSSettings, error) {
	var s inventory.DNSSettings
	if err := c.write(ctx, http.MethodPatch, body, &s, false, "zones", zoneID, "dns_settings"); err != nil {
		return nil, err
	}
	return &s, nil
}

// PatchAccountDNSSettings updates an account's DNS settings
// (PATCH /accounts/:id/dns_settings), e.g. {"zone_defaults": {"nameservers": {...}}}.
func (c *Client) PatchAccountDNSSettings(ctx context.Context, accountID string, body any) (*inventory.AccountDNSSettings, error) {
	var s inventory.AccountDNSSettings
	if err := c.write(ctx, http.MethodPatch, body, &s, false, "accounts", accountID, "dns_settings"); err != nil {
		return nil, err
	}
	return &s, nil
}

// PatchDNSRecord updates fields of a DNS record (PATCH /zones/:id/dns_records/:record_id).
func (c *Client) PatchDNSRecord(ctx context.Context, zoneID, recordID string, body any) (*inventory.DNSRecord, error) {
	var r inventory.DNSRecord
	if err := c.write(ctx, http.MethodPatch, body, &r, false, "zones", zoneID, "dns_records", recordID); err != nil {
		return nil, err
	}
	return &r, nil
}

// PatchZoneSetting sets a zone setting's value (PATCH /zones/:id/settings/NAME
// {"value": value}).
func (c *Client) PatchZoneSetting(ctx context.Context, zoneID, name string, value any) (*inventory.Setting, error) {
	var s inventory.Setting
	body := struct {
		Value any `json:"value"`
	}{value}
	if err := c.write(ctx, http.MethodPatch, body, &s, deprecatedZoneSettings[name], "zones", zoneID, "settings", name); err != nil {
		return nil, err
	}
	if s.ID == "" {
		s.ID = name
	}
	return &s, nil
}

// PutFirewallRule replaces a firewall rule (PUT /zones/:id/firewall/rules/:rule_id) with
// body, the whole rule: id, filter {id}, action, paused and the rest, which is how the SDKs
// pause a rule (the PATCH operation is documented for the priority only). The API answers
// with the rule or with an array of rules; either is accepted, and the rule with ruleID (or
// the only one) is returned.
func (c *Client) PutFirewallRule(ctx context.Context, zoneID, ruleID string, body any) (*inventory.FirewallRule, error) {
	var raw json.RawMessage
	if err := c.write(ctx, http.MethodPut, body, &raw, true, "zones", zoneID, "firewall", "rules", ruleID); err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	if raw[0] == '[' {
		var rules []inventory.FirewallRule
		if err := json.Unmarshal(raw, &rules); err != nil {
			return nil, fmt.Errorf("decoding firewall rules: %w", err)
		}
		for i := range rules {
			if rules[i].ID == ruleID || len(rules) == 1 {
				return &rules[i], nil
			}
		}
		return nil, nil
	}
	var r inventory.FirewallRule
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decoding firewall rule: %w", err)
	}
	return &r, nil
}

// DeleteFirewallRule deletes a firewall rule (DELETE /zones/:id/firewall/rules/:rule_id).
func (c *Client) DeleteFirewallRule(ctx context.Context, zoneID, ruleID string) error {
	return c.write(ctx, http.MethodDelete, nil, nil, true, "zones", zoneID, "firewall", "rules", ruleID)
}

// DeleteFilter deletes a filter (DELETE /zones/:id/filters/:filter_id); delete the rules
// that use it first.
func (c *Client) DeleteFilter(ctx context.Context, zoneID, filterID string) error {
	return c.write(ctx, http.MethodDelete, nil, nil, true, "zones", zoneID, "filters", filterID)
}

// DeleteRateLimit deletes a previous-version rate limit (DELETE /zones/:id/rate_limits/:id).
func (c *Client) DeleteRateLimit(ctx context.Context, zoneID, rateLimitID string) error {
	return c.write(ctx, http.MethodDelete, nil, nil, true, "zones", zoneID, "rate_limits", rateLimitID)
}

// DeleteWAFOverride deletes a URL-based WAF override
// (DELETE /zones/:id/firewall/waf/overrides/:id).
func (c *Client) DeleteWAFOverride(ctx context.Context, zoneID, overrideID string) error {
	return c.write(ctx, http.MethodDelete, nil, nil, true, "zones", zoneID, "firewall", "waf", "overrides", overrideID)
}

// Call sends one API call as a migration plan step writes it: method, a path relative to
// the v4 base ("/zones/ID/dns_records/RID") and a JSON body (nil for none). The envelope's
// result is decoded into out (nil ignores it). The path's segments are checked and escaped
// like those of every other call, so a step cannot reach outside the API base.
func (c *Client) Call(ctx context.Context, method, path string, body json.RawMessage, out any) error {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(body) == 0 {
		return c.write(ctx, method, nil, out, false, segs...)
	}
	return c.write(ctx, method, body, out, false, segs...)
}

// MaxBulkRuleUpdate is the most firewall rules one bulk PUT of /zones/:id/firewall/rules
// takes (the Firewall Rules API's PUT examples: "You can include up to 25 rules ... to update
// as a batch. The batch is handled as a transaction").
const MaxBulkRuleUpdate = 25

// MaxBulkDelete is the most ids sunset names in one bulk DELETE of /zones/:id/firewall/rules
// or /zones/:id/filters. The API documents no cap there, so no more than one page of those
// collections holds (domain facts "Pagination": 100), about 3.6 KB of query.
const MaxBulkDelete = 100

// CallIDs sends one bulk call of the firewall rules or filters API that names its objects in
// the query, as the API's bulk DELETE takes them: path?id=ID1&id=ID2 (cloudflare-go's
// DeleteFirewallRules and DeleteFilters send the same). The path is checked like Call's.
func (c *Client) CallIDs(ctx context.Context, method, path string, ids []string, out any) error {
	p, err := route(strings.Split(strings.Trim(path, "/"), "/")...)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, request{method: method, path: p, query: url.Values{"id": ids}}, out)
	return err
}

// ListAt reads every page of the list at path (a collection a plan step writes to, relative
// to the v4 base, checked and escaped like Call's), each item decoded into T: a lookup that
// read only the first page would miss an object on the second and create it again.
func ListAt[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	r, err := get(false, strings.Split(strings.Trim(path, "/"), "/")...)
	if err != nil {
		return nil, err
	}
	return listAll[T](ctx, c, r, PerPage(path))
}

// perPageOf are the page sizes ListAt asks for, by the collection a path ends with.
var perPageOf = map[string]int{
	"firewall/rules": perPageFirewall, "filters": perPageFilters,
	"firewall/waf/overrides": perPageWAF, "rate_limits": perPageRateLimits,
	"access/apps": perPageAccessApps, "alerting/v3/policies": perPageNotificationPolicies,
}

// PerPage is the page size ListAt asks for at path: the largest the endpoint takes (domain
// facts, "Pagination"), 0 when it takes none (the server's own, followed by result_info).
func PerPage(path string) int {
	for coll, n := range perPageOf {
		if strings.HasSuffix(path, "/"+coll) {
			return n
		}
	}
	return perPageUnspecified
}
