// Package terraform renders a migration plan as Terraform configuration for the Cloudflare
// provider v5, written with hclwrite (so it parses with hcl/v2 and is `terraform fmt` clean):
//
//   - versions.tf: the provider requirement and Terraform >= 1.7 (import and removed blocks);
//   - one file per zone: a cloudflare_ruleset per entry point the plan writes (custom rules,
//     rate limiting rules, managed rules) holding every rule after the migration, the
//     cloudflare_zone_dns_settings the plan sets, import {} blocks for the objects that
//     already exist (entry points, DNS settings), and removed {} blocks (destroy = false)
//     for the old resources the plan deletes through the API;
//   - accounts.tf: cloudflare_account_dns_settings with their import blocks.
//
// Decisions: rules are written as the API's JSON (v5 attribute names are the wire names),
// without the members the service computes (id, version, last_updated). Old resources are
// addressed the way cf-terraforming names them (terraform_managed_resource_<id>); a
// configuration that names them otherwise renames the `from` addresses. The removed blocks
// keep the objects (destroy = false): provider v5 has no resources for firewall rules,
// filters, previous-version rate limits or WAF overrides, so the plan's API steps delete them
// and Terraform only forgets them.
package terraform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// ProviderVersion is the provider version constraint written to versions.tf.
const ProviderVersion = "~> 5.0"

// phaseNames shortens phases for resource names.
var phaseNames = map[string]string{
	migrate.PhaseCustomRules:  "custom_rules",
	migrate.PhaseRateLimiting: "rate_limiting_rules",
	migrate.PhaseManaged:      "managed_rules",
	migrate.PhaseRedirect:     "redirect_rules",
}

// Files renders the plan: file name -> formatted content, in a map the caller writes.
// A plan with nothing for Terraform yields versions.tf alone.
func Files(p *migrate.Plan) (map[string][]byte, error) {
	out := map[string][]byte{}
	names := newNamer()

	v := hclwrite.NewEmptyFile()
	tf := v.Body().AppendNewBlock("terraform", nil).Body()
	tf.SetAttributeValue("required_version", cty.StringVal(">= 1.7.0"))
	rp := tf.AppendNewBlock("required_providers", nil).Body()
	rp.SetAttributeValue("cloudflare", cty.ObjectVal(map[string]cty.Value{
		"source":  cty.StringVal("cloudflare/cloudflare"),
		"version": cty.StringVal(ProviderVersion),
	}))
	out["versions.tf"] = finish(header("Provider requirements of the sunset migration plan."), v)

	acc := hclwrite.NewEmptyFile()
	accounts := 0
	for _, a := range p.Accounts {
		if a.DNSSettings == nil || a.DNSSettings.NameserversType == "" {
			continue
		}
		accounts++
		name := names.name("account_" + a.AccountID + "_dns_settings")
		body := acc.Body()
		body.AppendUnstructuredTokens(comment(fmt.Sprintf("Account %s: zone_defaults.nameservers.type replaces settings.default_nameservers / use_account_custom_ns_by_default.", a.AccountID)))
		r := body.AppendNewBlock("resource", []string{"cloudflare_account_dns_settings", name}).Body()
		r.SetAttributeValue("account_id", cty.StringVal(a.AccountID))
		r.SetAttributeValue("zone_defaults", cty.ObjectVal(map[string]cty.Value{
			"nameservers": cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal(a.DNSSettings.NameserversType)}),
		}))
		body.AppendNewline()
		importBlock(body, "cloudflare_account_dns_settings", name, a.AccountID)
	}
	if accounts > 0 {
		out["accounts.tf"] = finish(header("Account DNS settings of the sunset migration plan."), acc)
	}

	for _, z := range p.Zones {
		f := hclwrite.NewEmptyFile()
		body := f.Body()
		n := 0
		base := "zone_" + z.ZoneName
		for _, t := range z.Targets {
			n++
			name := names.name(base + "_" + phaseNames[t.Phase])
			if t.RulesetID != "" {
				body.AppendUnstructuredTokens(comment(fmt.Sprintf("Entry point %s exists (ruleset %s): imported, then updated to hold these rules.", t.Phase, t.RulesetID)))
			} else {
				body.AppendUnstructuredTokens(comment(fmt.Sprintf("Entry point %s is created by the plan.", t.Phase)))
			}
			r := body.AppendNewBlock("resource", []string{"cloudflare_ruleset", name}).Body()
			r.SetAttributeValue("zone_id", cty.StringVal(z.ZoneID))
			r.SetAttributeValue("name", cty.StringVal(t.Name))
			r.SetAttributeValue("kind", cty.StringVal("zone"))
			r.SetAttributeValue("phase", cty.StringVal(t.Phase))
			rules := make([]cty.Value, 0, len(t.Rules))
			for i, raw := range t.Rules {
				v, err := ruleValue(raw)
				if err != nil {
					return nil, fmt.Errorf("terraform: zone %s, %s rule %d: %w", z.ZoneName, t.Phase, i+1, err)
				}
				rules = append(rules, v)
			}
			r.SetAttributeRaw("rules", listTokens(rules))
			body.AppendNewline()
			if t.RulesetID != "" {
				importBlock(body, "cloudflare_ruleset", name, "zones/"+z.ZoneID+"/"+t.RulesetID)
			}
		}
		if s := z.DNSSettings; s != nil && !s.IsZero() {
			n++
			name := names.name(base + "_dns_settings")
			body.AppendUnstructuredTokens(comment("DNS settings replace the deprecated cname_flattening setting and the dns_settings/use_apex_ns and secondary_overrides endpoints."))
			r := body.AppendNewBlock("resource", []string{"cloudflare_zone_dns_settings", name}).Body()
			r.SetAttributeValue("zone_id", cty.StringVal(z.ZoneID))
			for _, a := range []struct {
				name string
				v    *bool
			}{{"flatten_all_cnames", s.FlattenAllCNAMEs}, {"multi_provider", s.MultiProvider}, {"secondary_overrides", s.SecondaryOverrides}} {
				if a.v != nil {
					r.SetAttributeValue(a.name, cty.BoolVal(*a.v))
				}
			}
			body.AppendNewline()
			importBlock(body, "cloudflare_zone_dns_settings", name, z.ZoneID)
		}
		retired := append([]migrate.Retired(nil), z.Retired...)
		sort.Slice(retired, func(i, j int) bool {
			if retired[i].Type != retired[j].Type {
				return retired[i].Type < retired[j].Type
			}
			return retired[i].ID < retired[j].ID
		})
		if len(retired) > 0 {
			n++
			body.AppendUnstructuredTokens(comment("Old resources the plan deletes through the API: Terraform forgets them (provider v5 cannot manage them). Rename the addresses if your configuration names them otherwise."))
		}
		for _, r := range retired {
			rb := body.AppendNewBlock("removed", nil).Body()
			rb.SetAttributeTraversal("from", hcl.Traversal{hcl.TraverseRoot{Name: r.Type}, hcl.TraverseAttr{Name: "terraform_managed_resource_" + strings.TrimLeft(sanitize(r.ID), "_")}})
			rb.AppendNewBlock("lifecycle", nil).Body().SetAttributeValue("destroy", cty.False)
			body.AppendNewline()
		}
		if n == 0 {
			continue
		}
		out[fileName(z.ZoneName, z.ZoneID, out)] = finish(header(fmt.Sprintf("Zone %s (%s): what the sunset migration plan creates, adopts and retires.", z.ZoneName, z.ZoneID)), f)
	}
	return out, nil
}

// generatedMark starts every file Files writes; Write deletes stale files that carry it.
const generatedMark = "# Generated by sunset plan."

// Write renders the plan into dir (created if missing), one file per entry of Files. Files
// an earlier run generated for zones no longer in the plan are deleted (they would declare
// stale resources); other files in dir are left alone.
func Write(dir string, p *migrate.Plan) error {
	files, err := Files(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return err
	}
	for _, path := range old {
		if _, keep := files[filepath.Base(path)]; keep {
			continue
		}
		if data, err := os.ReadFile(path); err == nil && bytes.HasPrefix(data, []byte(generatedMark)) {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// listTokens writes a list with one element per line ("[\n  {...},\n]"), the layout people
// write by hand, rather than hclwrite's "[{...}, {...}]".
func listTokens(vals []cty.Value) hclwrite.Tokens {
	if len(vals) == 0 {
		return hclwrite.TokensForValue(cty.EmptyTupleVal)
	}
	toks := hclwrite.Tokens{
		{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")},
		{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")},
	}
	for _, v := range vals {
		toks = append(toks, hclwrite.TokensForValue(v)...)
		toks = append(toks,
			&hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")},
			&hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
}

func importBlock(body *hclwrite.Body, typ, name, id string) {
	ib := body.AppendNewBlock("import", nil).Body()
	ib.SetAttributeTraversal("to", hcl.Traversal{hcl.TraverseRoot{Name: typ}, hcl.TraverseAttr{Name: name}})
	ib.SetAttributeValue("id", cty.StringVal(id))
	body.AppendNewline()
}

func header(text string) []byte {
	return []byte(generatedMark + " " + oneLine(text) + "\n\n")
}

// comment is a "# ..." line as tokens.
func comment(text string) hclwrite.Tokens {
	return hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + oneLine(text) + "\n")}}
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// finish prepends the header and formats the file the way terraform fmt does.
func finish(head []byte, f *hclwrite.File) []byte {
	var b bytes.Buffer
	b.Write(head)
	b.Write(bytes.TrimRight(f.Bytes(), "\n"))
	b.WriteString("\n")
	return hclwrite.Format(b.Bytes())
}

// fileName is zone_<name>.tf, made unique with the zone id when two names sanitise alike.
func fileName(zoneName, zoneID string, taken map[string][]byte) string {
	n := "zone_" + sanitize(zoneName) + ".tf"
	if _, dup := taken[n]; dup {
		n = "zone_" + sanitize(zoneName) + "_" + sanitize(zoneID) + ".tf"
	}
	return n
}

// sanitize makes a Terraform identifier: lowercase letters, digits, _ and -, starting with a
// letter or _.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || (out[0] >= '0' && out[0] <= '9') || out[0] == '-' {
		out = "_" + out
	}
	return out
}

// namer hands out unique resource names.
type namer struct{ used map[string]int }

func newNamer() *namer { return &namer{used: map[string]int{}} }

func (n *namer) name(s string) string {
	base := sanitize(s)
	n.used[base]++
	if k := n.used[base]; k > 1 {
		return fmt.Sprintf("%s_%d", base, k)
	}
	return base
}

// computed members of a stored rule that a configuration must not set.
var computed = map[string]bool{"id": true, "version": true, "last_updated": true}

// ruleValue converts a rule's JSON to a cty object, dropping computed members and nulls.
func ruleValue(raw json.RawMessage) (cty.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return cty.NilVal, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return cty.NilVal, fmt.Errorf("a rule is not a JSON object")
	}
	for k := range computed {
		delete(m, k)
	}
	return toCty(m)
}

func toCty(v any) (cty.Value, error) {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case json.Number:
		f, ok := new(big.Float).SetString(x.String())
		if !ok {
			return cty.NilVal, fmt.Errorf("number %s", x)
		}
		return cty.NumberVal(f), nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, 0, len(x))
		for _, e := range x {
			ev, err := toCty(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals = append(vals, ev)
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		attrs := map[string]cty.Value{}
		for k, e := range x {
			if e == nil {
				continue
			}
			ev, err := toCty(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = ev
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal, nil
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported JSON value %T", v)
}
