package terraform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// accountsFile renders the accounts' DNS settings and the objects their steps create; nil
// when there are none.
func (g *gen) accountsFile(p *migrate.Plan) ([]byte, error) {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	n := 0
	for i := range p.Accounts {
		a := &p.Accounts[i]
		if a.DNSSettings != nil && a.DNSSettings.NameserversType != "" {
			g.accountDNSSettings(body, a)
			n++
		}
		k, err := g.createdObjects(body, accountScope(a), a.Steps)
		if err != nil {
			return nil, fmt.Errorf("terraform: account %s: %w", a.AccountID, err)
		}
		n += k
	}
	if n == 0 {
		return nil, nil
	}
	return finish(header("Accounts: the Terraform way to carry out ../plan.md for account-wide objects (see README.md; use it or plan.md's API steps, never both)."), f), nil
}

// accountDNSSettings writes an account's cloudflare_account_dns_settings, without an import
// block (the provider cannot import it).
func (g *gen) accountDNSSettings(body *hclwrite.Body, a *migrate.AccountPlan) {
	name := g.names.name("account_" + a.AccountID + "_dns_settings")
	ids := g.claim(accountScope(a), a.Steps, writesPath("/accounts/"+a.AccountID+"/dns_settings"), "cloudflare_account_dns_settings."+name)
	body.AppendUnstructuredTokens(comment(fmt.Sprintf("Account %s: zone_defaults.nameservers.type replaces settings.default_nameservers / use_account_custom_ns_by_default.", a.AccountID)))
	body.AppendUnstructuredTokens(comment(adoptNote + replacesComment(ids)))
	r := body.AppendNewBlock("resource", []string{"cloudflare_account_dns_settings", name}).Body()
	r.SetAttributeValue("account_id", cty.StringVal(a.AccountID))
	r.SetAttributeValue("zone_defaults", cty.ObjectVal(map[string]cty.Value{
		"nameservers": cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal(a.DNSSettings.NameserversType)}),
	}))
	ignoreChanges(r, ignoredSettings(dnsSettingsAttrs["cloudflare_account_dns_settings"], []string{"zone_defaults.nameservers.type"}, ""))
	body.AppendNewline()
}

// creators turn a step that creates an object through the API into the resource that
// declares it: resource type, name prefix, and the attributes from the step's body.
var creators = map[string]struct {
	typ, prefix string
	attrs       func(body json.RawMessage) (map[string]cty.Value, error)
}{
	"notification-policy.create": {"cloudflare_notification_policy", "notification_policy_", policyAttrs},
	"access-app.create":          {"cloudflare_zero_trust_access_application", "access_application_", accessAppAttrs},
}

// createdObjects writes a resource for every step of a scope that creates an object the
// provider has a resource for; it returns how many it wrote.
func (g *gen) createdObjects(body *hclwrite.Body, scope string, steps []migrate.Step) (int, error) {
	n := 0
	for _, st := range steps {
		c, ok := creators[string(st.Kind)]
		if !ok {
			continue
		}
		account := accountOf(st.Path)
		if account == "" {
			return n, fmt.Errorf("step %s: %s is not an account path", st.ID, st.Path)
		}
		attrs, err := c.attrs(st.Body)
		if err != nil {
			return n, fmt.Errorf("step %s: %w", st.ID, err)
		}
		name := g.names.name(c.prefix + objectOf(st.ID))
		id := st.ID
		g.claim(scope, steps, func(s migrate.Step) bool { return s.ID == id }, c.typ+"."+name)
		body.AppendUnstructuredTokens(comment(oneLine(st.Title) + "." + replacesComment([]string{st.ID}) + " Running both creates it twice."))
		r := body.AppendNewBlock("resource", []string{c.typ, name}).Body()
		r.SetAttributeValue("account_id", cty.StringVal(account))
		keys := make([]string, 0, len(attrs))
		for k := range attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r.SetAttributeValue(k, attrs[k])
		}
		body.AppendNewline()
		n++
	}
	return n, nil
}

// strictDecode decodes a step body into v, refusing members v does not name: a member this
// package does not know would otherwise be dropped from the resource silently.
func strictDecode(body json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	return nil
}

// policyAttrs maps a notification policy body (POST /accounts/:id/alerting/v3/policies) to
// cloudflare_notification_policy: the v5 attributes carry the wire names; mechanisms is an
// object of sets of {id}, filters an object of string lists.
func policyAttrs(body json.RawMessage) (map[string]cty.Value, error) {
	var b struct {
		Name        string                           `json:"name"`
		AlertType   string                           `json:"alert_type"`
		Description string                           `json:"description"`
		Enabled     *bool                            `json:"enabled"`
		Mechanisms  map[string][]struct{ ID string } `json:"mechanisms"`
		Filters     map[string][]string              `json:"filters"`
	}
	if err := strictDecode(body, &b); err != nil {
		return nil, err
	}
	if b.Name == "" || b.AlertType == "" || len(b.Mechanisms) == 0 {
		return nil, fmt.Errorf("a notification policy needs name, alert_type and mechanisms")
	}
	out := map[string]cty.Value{"name": cty.StringVal(b.Name), "alert_type": cty.StringVal(b.AlertType)}
	if b.Description != "" {
		out["description"] = cty.StringVal(b.Description)
	}
	if b.Enabled != nil {
		out["enabled"] = cty.BoolVal(*b.Enabled)
	}
	mech := map[string]cty.Value{}
	for kind, targets := range b.Mechanisms {
		ids := make([]cty.Value, 0, len(targets))
		for _, t := range targets {
			ids = append(ids, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(t.ID)}))
		}
		mech[kind] = tupleOrEmpty(ids)
	}
	out["mechanisms"] = cty.ObjectVal(mech)
	if len(b.Filters) > 0 {
		filters := map[string]cty.Value{}
		for k, vs := range b.Filters {
			list := make([]cty.Value, 0, len(vs))
			for _, v := range vs {
				list = append(list, cty.StringVal(v))
			}
			filters[k] = tupleOrEmpty(list)
		}
		out["filters"] = cty.ObjectVal(filters)
	}
	return out, nil
}

// accessAppAttrs maps an Access application body (POST /accounts/:id/access/apps) of type
// bookmark to cloudflare_zero_trust_access_application.
func accessAppAttrs(body json.RawMessage) (map[string]cty.Value, error) {
	var b struct {
		Type               string `json:"type"`
		Name               string `json:"name"`
		Domain             string `json:"domain"`
		LogoURL            string `json:"logo_url"`
		AppLauncherVisible *bool  `json:"app_launcher_visible"`
	}
	if err := strictDecode(body, &b); err != nil {
		return nil, err
	}
	if b.Type == "" || b.Name == "" {
		return nil, fmt.Errorf("an Access application needs type and name")
	}
	out := map[string]cty.Value{"type": cty.StringVal(b.Type), "name": cty.StringVal(b.Name)}
	if b.Domain != "" {
		out["domain"] = cty.StringVal(b.Domain)
	}
	if b.LogoURL != "" {
		out["logo_url"] = cty.StringVal(b.LogoURL)
	}
	if b.AppLauncherVisible != nil {
		out["app_launcher_visible"] = cty.BoolVal(*b.AppLauncherVisible)
	}
	return out, nil
}

func tupleOrEmpty(vals []cty.Value) cty.Value {
	if len(vals) == 0 {
		return cty.EmptyTupleVal
	}
	return cty.TupleVal(vals)
}
