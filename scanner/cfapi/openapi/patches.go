package openapi

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// patch fixes one known stale point of the 2024-08-06 snapshot. apply changes the document
// and reports whether the stale point was there; a document without it (an excerpt that
// leaves the schema out, or a newer snapshot) is left alone and the patch is not listed.
type patch struct {
	what  string // what is changed and why, with the evidence
	apply func(t *openapi3.T) bool
}

// patches are the stale points of the snapshot, each justified by the current API
// (domain-facts.md) or by a recorded request the real API answered (../realworld/api).
var patches = []patch{
	{
		what: "rulesets_RuleAction: pattern ^[a-z]+$ widened to ^[a-z_]+$; the snapshot's pattern rejects " +
			"managed_challenge and js_challenge, which the current API accepts (domain-facts \"Firewall rules " +
			"to custom rules\"; the snapshot's own rulesets_RequestRule discriminator maps both)",
		apply: patchRuleAction,
	},
	{
		what: "rulesets_Rule: ratelimit added (characteristics, period, requests_per_period, mitigation_timeout, " +
			"counting_expression, requests_to_origin); the snapshot lacks it, the current API has it " +
			"(domain-facts \"New rate limiting rule\": periods 10, 60, 120, 300, 600, 3600; mitigation " +
			"timeouts 0, 10, 60, 120, 300, 600, 3600, 86400)",
		apply: patchRuleRatelimit,
	},
	{
		what: "POST /zones/{zone_identifier}/firewall/rules and PUT /zones/{zone_identifier}/firewall/rules/{id}: " +
			"request action is the rule action string (firewall_schemas-action, the snapshot's own response " +
			"schema), not the rate limit action object firewall_action; recorded requests " +
			"firewall_rules.create_multiple.cloudflare-go.request.json and firewall_rules.update_single." +
			"cloudflare-go.request.json send strings and the API answered them",
		apply: patchFirewallRuleAction,
	},
	{
		what: "POST /zones/{zone_identifier}/firewall/rules and POST /zones/{zone_identifier}/filters: the " +
			"request body is an array of the described object, not one object; recorded requests " +
			"firewall_rules.create_multiple.cloudflare-go.request.json and filters.create_multiple." +
			"cloudflare-go.request.json are arrays and the API answered them (the spec says \"JSON array\")",
		apply: patchBulkCreateArrays,
	},
	{
		what: "dns-settings_nameservers: type enum [cloudflare.standard] widened to the wire values " +
			"cloudflare.standard, cloudflare.standard.random, custom.account, custom.tenant, custom.zone, and on input " +
			"the spec's spellings platform.standard, platform.standard.random (domain-facts \"Zone, DNS and account " +
			"settings\": the wire values, and accept both spellings)",
		apply: patchNameserverTypes,
	},
	{
		what: "POST /zones/{zone_id}/rulesets/{ruleset_id}/rules and PATCH .../rules/{rule_id}: each alternative " +
			"of position requires its own member (before, after or index); in the snapshot none does, so every " +
			"position matches all three alternatives and is refused, while the API places rules by position " +
			"(domain-facts \"Firewall rules to custom rules\": position {\"before\"|\"after\": id} or {\"index\": n})",
		apply: patchRulePosition,
	},
	{
		what: "POST, PUT and PATCH /zones/{zone_id}/dns_records...: id is not required in request bodies; the " +
			"snapshot's dns-records_dns-record is the response shape (its other required members proxiable, " +
			"created_on, modified_on are read-only), and a record to create has no id yet (the spec: the service " +
			"assigns ids; zone-management-api.md \"DNS records\")",
		apply: patchDNSRecordID,
	},
	{
		what: "every oneOf is read as anyOf: a value may fit several alternatives, which a strict oneOf refuses; " +
			"the real API's answers do (recording waf_packages.get.cloudflare-go.json fits both alternatives of " +
			"its package schema), so do the snapshot's own examples (aaa_mechanisms {\"email\": [{\"id\": " +
			"\"test@example.com\"}]}, a redirect's target_url {\"expression\": ...}), and so would every rule " +
			"position (domain-facts); discriminated alternatives are still chosen by their tag",
		apply: patchOneOfAsAnyOf,
	},
}

// applyPatches applies every patch whose stale point the document has and describes them.
func applyPatches(t *openapi3.T) []string {
	var out []string
	for _, p := range patches {
		if p.apply(t) {
			out = append(out, p.what)
		}
	}
	return out
}

// componentSchema returns a component schema by name, or nil.
func componentSchema(t *openapi3.T, name string) *openapi3.Schema {
	if t.Components == nil {
		return nil
	}
	ref := t.Components.Schemas[name]
	if ref == nil {
		return nil
	}
	return ref.Value
}

// operationSchema returns the JSON request body schema of an operation, or nil.
func operationSchema(t *openapi3.T, path, method string) *openapi3.Schema {
	item := t.Paths.Value(path)
	if item == nil {
		return nil
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil
	}
	return requestSchema(op)
}

func patchRuleAction(t *openapi3.T) bool {
	s := componentSchema(t, "rulesets_RuleAction")
	if s == nil || s.Pattern != "^[a-z]+$" {
		return false
	}
	s.Pattern = "^[a-z_]+$"
	return true
}

func patchRuleRatelimit(t *openapi3.T) bool {
	s := componentSchema(t, "rulesets_Rule")
	if s == nil || s.Properties == nil || s.Properties["ratelimit"] != nil {
		return false
	}
	integers := func(values ...int) *openapi3.SchemaRef {
		enum := make([]any, len(values))
		for i, v := range values {
			enum[i] = float64(v) // JSON numbers decode as float64
		}
		return openapi3.NewIntegerSchema().WithEnum(enum...).NewRef()
	}
	rl := openapi3.NewObjectSchema().
		WithProperty("characteristics", openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema()).WithMinItems(1)).
		WithProperty("counting_expression", openapi3.NewStringSchema()).
		WithProperty("requests_per_period", openapi3.NewIntegerSchema().WithMin(1)).
		WithProperty("requests_to_origin", openapi3.NewBoolSchema())
	rl.Properties["period"] = integers(10, 60, 120, 300, 600, 3600)
	rl.Properties["mitigation_timeout"] = integers(0, 10, 60, 120, 300, 600, 3600, 86400)
	rl.Required = []string{"characteristics", "period"}
	rl.Description = "The rate limiting parameters of the rule (patched in: absent from the 2024-08-06 snapshot)."
	s.Properties["ratelimit"] = rl.NewRef()
	return true
}

func patchFirewallRuleAction(t *openapi3.T) bool {
	action := componentSchema(t, "firewall_schemas-action")
	if action == nil {
		return false
	}
	patched := false
	for _, m := range []struct{ path, method string }{
		{"/zones/{zone_identifier}/firewall/rules", "POST"},
		{"/zones/{zone_identifier}/firewall/rules/{id}", "PUT"},
	} {
		s := operationSchema(t, m.path, m.method)
		if s == nil || s.Properties["action"] == nil || s.Properties["action"].Ref != "#/components/schemas/firewall_action" {
			continue
		}
		s.Properties["action"] = &openapi3.SchemaRef{Ref: "#/components/schemas/firewall_schemas-action", Value: action}
		patched = true
	}
	return patched
}

func patchBulkCreateArrays(t *openapi3.T) bool {
	patched := false
	for _, path := range []string{"/zones/{zone_identifier}/firewall/rules", "/zones/{zone_identifier}/filters"} {
		item := t.Paths.Value(path)
		if item == nil || item.Post == nil || item.Post.RequestBody == nil || item.Post.RequestBody.Value == nil {
			continue
		}
		mt := item.Post.RequestBody.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || !mt.Schema.Value.Type.Is(openapi3.TypeObject) {
			continue
		}
		mt.Schema = openapi3.NewArraySchema().WithItems(mt.Schema.Value).WithMinItems(1).NewRef()
		patched = true
	}
	return patched
}

// nameserverTypes are the wire values of nameservers.type, then the spec's input spellings.
var nameserverTypes = []any{
	"cloudflare.standard", "cloudflare.standard.random", "custom.account", "custom.tenant", "custom.zone",
	"platform.standard", "platform.standard.random",
}

func patchNameserverTypes(t *openapi3.T) bool {
	s := componentSchema(t, "dns-settings_nameservers")
	if s == nil || s.Properties["type"] == nil || s.Properties["type"].Value == nil {
		return false
	}
	typ := s.Properties["type"].Value
	if len(typ.Enum) != 1 || typ.Enum[0] != "cloudflare.standard" {
		return false
	}
	typ.Enum = nameserverTypes
	return true
}

func patchRulePosition(t *openapi3.T) bool {
	if t.Components == nil {
		return false
	}
	body := t.Components.RequestBodies["rulesets_Rule"]
	if body == nil || body.Value == nil {
		return false
	}
	s := jsonSchema(body.Value.Content)
	if s == nil {
		return false
	}
	patched := false
	for _, part := range s.AllOf {
		pos := part.Value.Properties["position"]
		if pos == nil || pos.Value == nil {
			continue
		}
		for _, alt := range pos.Value.OneOf {
			for _, sub := range alt.Value.AllOf {
				for _, member := range []string{"before", "after", "index"} {
					if sub.Value.Properties[member] != nil && len(sub.Value.Required) == 0 {
						sub.Value.Required = []string{member}
						patched = true
					}
				}
			}
		}
	}
	return patched
}

func patchDNSRecordID(t *openapi3.T) bool {
	patched := false
	for _, m := range []struct{ path, method string }{
		{"/zones/{zone_id}/dns_records", "POST"},
		{"/zones/{zone_id}/dns_records/{dns_record_id}", "PUT"},
		{"/zones/{zone_id}/dns_records/{dns_record_id}", "PATCH"},
	} {
		item := t.Paths.Value(m.path)
		if item == nil || item.GetOperation(m.method) == nil {
			continue
		}
		op := item.GetOperation(m.method)
		if op.RequestBody == nil || op.RequestBody.Value == nil {
			continue
		}
		mt := op.RequestBody.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || !slices.Contains(mt.Schema.Value.Required, "id") {
			continue
		}
		// A copy: the same schema describes responses, where the id is required.
		cp := *mt.Schema.Value
		cp.Required = slices.DeleteFunc(slices.Clone(cp.Required), func(k string) bool { return k == "id" })
		mt.Schema = cp.NewRef()
		patched = true
	}
	return patched
}

func patchOneOfAsAnyOf(t *openapi3.T) bool {
	patched := false
	eachSchema(t, func(s *openapi3.Schema) {
		if len(s.OneOf) == 0 {
			return
		}
		if len(s.AnyOf) == 0 {
			s.AnyOf = s.OneOf
		} else {
			s.AllOf = append(s.AllOf, &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: s.OneOf}})
		}
		s.OneOf = nil
		patched = true
	})
	return patched
}
