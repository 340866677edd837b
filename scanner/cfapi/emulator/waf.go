package emulator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Previous-version rate limit vocabulary (domain-facts).
var (
	rateLimitModes   = []string{"ban", "challenge", "js_challenge", "managed_challenge", "simulate"}
	rateLimitMethods = []string{"DELETE", "GET", "HEAD", "PATCH", "POST", "PUT", "_ALL_"}
	rateLimitSchemes = []string{"HTTP", "HTTPS", "_ALL_"}
)

// rateLimitQuota is the number of previous-version rate limits per plan.
func rateLimitQuota(plan string) int { return inventory.RateLimitsQuota(plan) }

// checkRateLimit validates a previous-version rate limit.
func checkRateLimit(_ *call, r *inventory.RateLimit) *APIError {
	bad := func(format string, args ...any) *APIError {
		return &APIError{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
	}
	if r.Match.Request == nil || strings.TrimSpace(r.Match.Request.URL) == "" {
		return bad("match.request.url is required")
	}
	for _, m := range r.Match.Request.Methods {
		if !contains(rateLimitMethods, m) {
			return bad("match.request.methods: unknown method %q", m)
		}
	}
	for _, s := range r.Match.Request.Schemes {
		if !contains(rateLimitSchemes, s) {
			return bad("match.request.schemes: unknown scheme %q", s)
		}
	}
	if r.Threshold < 1 {
		return bad("threshold must be a positive integer")
	}
	if r.Period < 10 || r.Period > 86400 {
		return bad("period must be between 10 and 86400 seconds")
	}
	if !contains(rateLimitModes, r.Action.Mode) {
		return bad("action.mode must be one of %s", strings.Join(rateLimitModes, ", "))
	}
	if (r.Action.Mode == "ban" || r.Action.Mode == "simulate") && (r.Action.Timeout < 10 || r.Action.Timeout > 86400) {
		return bad("action.timeout must be between 10 and 86400 seconds for mode %s", r.Action.Mode)
	}
	if len(r.Description) > 1024 {
		return bad("description is longer than 1024 characters")
	}
	return nil
}

// wafActions are the actions an override may give a WAF group or rule.
var wafActions = []string{"challenge", "block", "simulate", "disable", "default"}

// checkOverride validates a URL-based WAF override.
func checkOverride(_ *call, o *inventory.WAFOverride) *APIError {
	if len(o.URLs) == 0 {
		return &APIError{Code: CodeInvalid, Message: "urls must hold at least one URL pattern"}
	}
	// The values of groups and rules are WAF actions (the schema's firewall_waf_action; for
	// groups "usually default or disable").
	for _, m := range []struct {
		name    string
		actions map[string]string
	}{{"groups", o.Groups}, {"rules", o.Rules}} {
		for id, action := range m.actions {
			if !slices.Contains(wafActions, action) {
				return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("%s[%s]: %q is not a WAF action (%s)", m.name, id, action, strings.Join(wafActions, ", "))}
			}
		}
	}
	return nil
}

func (z *zoneState) wafPackage(id string) *inventory.WAFPackageInventory {
	for _, p := range z.waf {
		if p.Package.ID == id {
			return p
		}
	}
	return nil
}

// wafRoutes registers the previous-version WAF and rate limiting endpoints.
// pkg is the WAF package the path names.
func pkg(c *call) (*inventory.WAFPackageInventory, *reply) {
	p := c.zone.wafPackage(c.params["package_id"])
	if p == nil {
		return nil, notFound("WAF package", c.params["package_id"])
	}
	return p, nil
}

func (s *Server) wafRoutes() {
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages", func(c *call) *reply {
		out := []inventory.WAFPackage{}
		for _, p := range c.zone.waf {
			if v := c.query.Get("name"); v != "" && !strings.Contains(strings.ToLower(p.Package.Name), strings.ToLower(v)) {
				continue
			}
			out = append(out, renderWAFPackage(deepCopy(p.Package)))
		}
		return listReply(c, out, pageWAF)
	})
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages/:package_id", func(c *call) *reply {
		p, rep := pkg(c)
		if rep != nil {
			return rep
		}
		return ok(renderWAFPackage(deepCopy(p.Package)))
	})
	s.handle("PATCH", "/zones/:zone_id/firewall/waf/packages/:package_id", func(c *call) *reply {
		p, rep := pkg(c)
		if rep != nil {
			return rep
		}
		var in struct {
			Sensitivity *string `json:"sensitivity"`
			ActionMode  *string `json:"action_mode"`
		}
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if !p.Package.IsOWASP() && (in.Sensitivity != nil || in.ActionMode != nil) {
			return invalid("package %s uses %s detection: only an anomaly (OWASP) package has a sensitivity and an action mode", p.Package.ID, p.Package.DetectionMode)
		}
		if in.Sensitivity != nil && !contains([]string{"high", "medium", "low", "off"}, *in.Sensitivity) {
			return invalid("sensitivity must be high, medium, low or off")
		}
		if in.ActionMode != nil && !contains([]string{"simulate", "block", "challenge"}, *in.ActionMode) {
			return invalid("action_mode must be simulate, block or challenge")
		}
		if in.Sensitivity != nil {
			p.Package.Sensitivity = *in.Sensitivity
		}
		if in.ActionMode != nil {
			p.Package.ActionMode = *in.ActionMode
		}
		return ok(renderWAFPackage(deepCopy(p.Package)))
	})
	s.wafGroupRoutes()
}

// wafGroupRoutes registers the rule groups of previous-version WAF packages.
func (s *Server) wafGroupRoutes() {
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages/:package_id/groups", func(c *call) *reply {
		p, rep := pkg(c)
		if rep != nil {
			return rep
		}
		out := []inventory.WAFGroup{}
		for _, g := range p.Groups {
			if v := c.query.Get("mode"); v != "" && g.Mode != v {
				continue
			}
			if v := c.query.Get("name"); v != "" && !strings.Contains(strings.ToLower(g.Name), strings.ToLower(v)) {
				continue
			}
			out = append(out, deepCopy(g))
		}
		return listReply(c, out, pageWAF)
	})
	group := func(c *call) (*inventory.WAFGroup, *reply) {
		p, rep := pkg(c)
		if rep != nil {
			return nil, rep
		}
		for i := range p.Groups {
			if p.Groups[i].ID == c.params["group_id"] {
				return &p.Groups[i], nil
			}
		}
		return nil, notFound("WAF rule group", c.params["group_id"])
	}
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id", func(c *call) *reply {
		g, rep := group(c)
		if rep != nil {
			return rep
		}
		return ok(deepCopy(*g))
	})
	s.handle("PATCH", "/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id", func(c *call) *reply {
		g, rep := group(c)
		if rep != nil {
			return rep
		}
		if rep := c.setMode(&g.Mode, g.AllowedModes); rep != nil {
			return rep
		}
		return ok(deepCopy(*g))
	})
	s.wafRuleRoutes()
}

// wafRuleRoutes registers the rules of previous-version WAF packages, URL overrides and
// previous-version rate limits.
func (s *Server) wafRuleRoutes() {
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages/:package_id/rules", func(c *call) *reply {
		p, rep := pkg(c)
		if rep != nil {
			return rep
		}
		out := []inventory.WAFRule{}
		for _, r := range p.Rules {
			if v := c.query.Get("mode"); v != "" && r.Mode != v {
				continue
			}
			if v := c.query.Get("group_id"); v != "" && (r.Group == nil || r.Group.ID != v) {
				continue
			}
			if v := c.query.Get("description"); v != "" && !strings.Contains(strings.ToLower(r.Description), strings.ToLower(v)) {
				continue
			}
			out = append(out, deepCopy(renderWAFRule(r)))
		}
		return listReply(c, out, pageWAF)
	})
	rule := func(c *call) (*inventory.WAFRule, *reply) {
		p, rep := pkg(c)
		if rep != nil {
			return nil, rep
		}
		for i := range p.Rules {
			if p.Rules[i].ID == c.params["rule_id"] {
				return &p.Rules[i], nil
			}
		}
		return nil, notFound("WAF rule", c.params["rule_id"])
	}
	s.handle("GET", "/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id", func(c *call) *reply {
		r, rep := rule(c)
		if rep != nil {
			return rep
		}
		return ok(deepCopy(renderWAFRule(*r)))
	})
	s.handle("PATCH", "/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id", func(c *call) *reply {
		r, rep := rule(c)
		if rep != nil {
			return rep
		}
		if rep := c.setMode(&r.Mode, r.AllowedModes); rep != nil {
			return rep
		}
		return ok(deepCopy(renderWAFRule(*r)))
	})
	s.overrideRoutes()
}

// overrideRoutes registers URL-based WAF overrides and previous-version rate limits.
func (s *Server) overrideRoutes() {
	overrides := resource[inventory.WAFOverride]{
		kind: "WAF override", param: "override_id", lim: pageWAF,
		items: func(c *call) *[]*inventory.WAFOverride { return &c.zone.overrides },
		getID: func(o *inventory.WAFOverride) string { return o.ID },
		setID: func(o *inventory.WAFOverride, id string) { o.ID = id },
		check: checkOverride,
	}
	s.handle("GET", "/zones/:zone_id/firewall/waf/overrides", overrides.list)
	s.handle("POST", "/zones/:zone_id/firewall/waf/overrides", overrides.create)
	s.handle("GET", "/zones/:zone_id/firewall/waf/overrides/:override_id", overrides.get)
	s.handle("PUT", "/zones/:zone_id/firewall/waf/overrides/:override_id", overrides.replace)
	s.handle("DELETE", "/zones/:zone_id/firewall/waf/overrides/:override_id", overrides.remove)

	limits := resource[inventory.RateLimit]{
		kind: "rate limit", param: "rate_limit_id", lim: pageRateLimits,
		items: func(c *call) *[]*inventory.RateLimit { return &c.zone.rateLimit },
		getID: func(r *inventory.RateLimit) string { return r.ID },
		setID: func(r *inventory.RateLimit, id string) { r.ID = id },
		check: checkRateLimit,
		quota: func(c *call) int { return rateLimitQuota(c.zone.plan()) },
	}
	s.handle("GET", "/zones/:zone_id/rate_limits", limits.list)
	s.handle("POST", "/zones/:zone_id/rate_limits", limits.create)
	s.handle("GET", "/zones/:zone_id/rate_limits/:rate_limit_id", limits.get)
	s.handle("PUT", "/zones/:zone_id/rate_limits/:rate_limit_id", limits.replace)
	s.handle("DELETE", "/zones/:zone_id/rate_limits/:rate_limit_id", limits.remove)
}

// setMode applies a PATCH {"mode": ...} of a WAF group or rule: the mode must be one of the
// object's allowed modes (on and off when it lists none).
func (c *call) setMode(mode *string, allowed []string) *reply {
	var in struct {
		Mode string `json:"mode"`
	}
	if rep := c.decode(&in); rep != nil {
		return rep
	}
	if len(allowed) == 0 {
		allowed = []string{"on", "off"}
	}
	if !contains(allowed, in.Mode) {
		return invalid("mode must be one of %s", strings.Join(allowed, ", "))
	}
	*mode = in.Mode
	return nil
}
