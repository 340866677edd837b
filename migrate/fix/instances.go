package fix

import (
	"crypto/sha1" //nolint:gosec // a short stable suffix, not security
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// instance is one instance of a repeated resource: its key (each.key or count.index as a
// string, "" when not repeated) and the variables its expressions see.
type instance struct {
	key  string
	vars map[string]cty.Value
}

// instancesOf enumerates the instances of r, false when its collection or count is not
// known from the repository.
func instancesOf(ev *evaluator, r *Resource) ([]instance, bool) {
	if n := r.Attr("count"); n != nil {
		v := ev.value(n, nil)
		if !v.IsWhollyKnown() || v.IsNull() || !v.Type().Equals(cty.Number) {
			return nil, false
		}
		count, _ := v.AsBigFloat().Int64()
		out := make([]instance, 0, count)
		for i := int64(0); i < count; i++ {
			iv := cty.NumberIntVal(i)
			out = append(out, instance{key: fmt.Sprint(i), vars: map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": iv})}})
		}
		return out, true
	}
	fe := r.Attr("for_each")
	if fe == nil {
		return []instance{{}}, true
	}
	v := ev.value(fe, nil)
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil, false
	}
	var out []instance
	switch {
	case v.Type().IsMapType() || v.Type().IsObjectType():
		for k, e := range v.AsValueMap() {
			out = append(out, eachInstance(k, cty.StringVal(k), e))
		}
	case v.Type().IsSetType():
		for _, e := range v.AsValueSlice() {
			s, err := convert.Convert(e, cty.String)
			if err != nil {
				return nil, false
			}
			out = append(out, eachInstance(s.AsString(), s, e))
		}
	default:
		return nil, false
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, true
}

func eachInstance(key string, k, v cty.Value) instance {
	return instance{key: key, vars: map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": v})}}
}

// oldRules are the firewall rules a pair declares, one per instance, with their filters;
// false when any value is not known from the repository.
func oldRules(ev *evaluator, p *pair) ([]inventory.FirewallRule, bool) {
	if p.inline {
		return inlineRule(ev, p.rule)
	}
	fev := ev
	if p.filter.Module != ev.m {
		fev = evaluatorOf(p.filter.Module) // a filter of another module reads its own values
	}
	insts, ok := instancesOf(fev, p.filter)
	if !ok {
		return nil, false
	}
	filters := make([]inventory.Filter, 0, len(insts))
	objs := map[string]cty.Value{}
	var list []cty.Value
	for _, in := range insts {
		f, ok := filterOf(fev, p.filter, in)
		if !ok {
			return nil, false
		}
		filters = append(filters, f)
		objs[in.key] = filterObject(f)
		list = append(list, filterObject(f))
	}
	// A rule may read its filter by reference: cloudflare_filter.F, [count.index], [each.key].
	var coll cty.Value
	switch {
	case p.filter.Attr("count") != nil:
		coll = cty.TupleVal(list)
	case p.filter.Attr("for_each") != nil:
		coll = cty.ObjectVal(objs)
	default:
		coll = list[0]
	}
	filterVar := cty.ObjectVal(map[string]cty.Value{p.filter.Name: coll})
	var out []inventory.FirewallRule
	for i, in := range insts {
		f := filters[i]
		vars := map[string]cty.Value{typeFilter: filterVar}
		for k, v := range in.vars {
			vars[k] = v
		}
		if p.viaFilter {
			vars["each"] = cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(in.key), "value": filterObject(f)})
		}
		r, ok := ruleOf(ev, p.rule, instance{key: in.key, vars: vars}, f)
		if !ok {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// inlineRule reads provider v5's firewall rule: its filter and action objects, as the API
// writes them, and the rest as v4 does.
func inlineRule(ev *evaluator, r *Resource) ([]inventory.FirewallRule, bool) {
	in := instance{}
	var fv cty.Value
	fv, ok := known(ev, r.Attr("filter"), in, cty.Object(map[string]cty.Type{"expression": cty.String}))
	if !ok || fv.IsNull() {
		return nil, false
	}
	full := ev.value(r.Attr("filter"), nil)
	f := inventory.Filter{ID: r.Address() + ".filter", Expression: fv.GetAttr("expression").AsString()}
	for name, dst := range map[string]*string{"description": &f.Description, "ref": &f.Ref} {
		if full.Type().IsObjectType() && full.Type().HasAttribute(name) {
			if v := full.GetAttr(name); v.IsKnown() && !v.IsNull() && v.Type().Equals(cty.String) {
				*dst = v.AsString()
			}
		}
	}
	fr := inventory.FirewallRule{ID: r.Address(), Filter: f, Ref: refName(r, "")}
	var action string
	if x := r.Attr("action"); x != nil {
		if v := ev.value(x, nil); v.Type().IsObjectType() && v.Type().HasAttribute("mode") && v.GetAttr("mode").IsKnown() && !v.GetAttr("mode").IsNull() {
			action = v.GetAttr("mode").AsString()
		}
	}
	ok = str(ev, r.Attr("description"), in, &fr.Description) && boolean(ev, r.Attr("paused"), in, &fr.Paused) &&
		priority(ev, r.Attr("priority"), in, &fr.Priority) && stringList(ev, r.Attr("products"), in, &fr.Products)
	fr.Action = vocab.Action(action)
	return []inventory.FirewallRule{fr}, ok && action != "" && f.Expression != ""
}

// instanceAddress is TYPE.NAME or TYPE.NAME[KEY] as Terraform shows it.
func instanceAddress(r *Resource, key string) string {
	switch {
	case r.Attr("count") != nil:
		return fmt.Sprintf("%s[%s]", r.Address(), key)
	case r.Attr("for_each") != nil:
		return fmt.Sprintf("%s[%q]", r.Address(), key)
	}
	return r.Address()
}

func filterOf(ev *evaluator, r *Resource, in instance) (inventory.Filter, bool) {
	f := inventory.Filter{ID: instanceAddress(r, in.key)}
	ok := str(ev, filterAttr(r, "expression"), in, &f.Expression) &&
		str(ev, filterAttr(r, "description"), in, &f.Description) &&
		boolean(ev, filterAttr(r, "paused"), in, &f.Paused)
	return f, ok && f.Expression != ""
}

// filterObject is what each.value is in a rule whose for_each is the filter resource.
func filterObject(f inventory.Filter) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"expression": cty.StringVal(f.Expression), "description": cty.StringVal(f.Description),
		"paused": cty.BoolVal(f.Paused), "id": cty.UnknownVal(cty.String),
	})
}

func ruleOf(ev *evaluator, r *Resource, in instance, f inventory.Filter) (inventory.FirewallRule, bool) {
	fr := inventory.FirewallRule{ID: instanceAddress(r, in.key), Filter: f, Ref: refName(r, in.key)}
	var action string
	ok := str(ev, ruleAttr(r, "action"), in, &action) &&
		str(ev, r.Attr("description"), in, &fr.Description) &&
		boolean(ev, r.Attr("paused"), in, &fr.Paused) &&
		priority(ev, r.Attr("priority"), in, &fr.Priority) &&
		stringList(ev, r.Attr("products"), in, &fr.Products)
	fr.Action = vocab.Action(action)
	return fr, ok && action != ""
}

// refName is the ref of the custom rule made from an instance: the resource's name and
// key, so a later run (and the account's rule list) tells which rule it came from.
func refName(r *Resource, key string) string {
	if key == "" {
		return shortRef(r.Name)
	}
	return shortRef(r.Name + "_" + key)
}

// maxRef is the longest ref the API takes (domain-facts: up to 50 characters).
const maxRef = 50

// shortRef is s when it fits a ref, else its start and 8 hex digits of its SHA-1, 50
// characters in all: still unique, still telling where the rule came from. The HCL a driven
// group writes computes the same (refExpr).
func shortRef(s string) string {
	r := []rune(s)
	if len(r) <= maxRef {
		return s
	}
	sum := sha1.Sum([]byte(s))
	return string(r[:maxRef-9]) + "_" + hex.EncodeToString(sum[:])[:8]
}

// str, boolean, priority and stringList read an optional attribute of an instance; false
// when it is set but not known.
func str(ev *evaluator, x hclsyntax.Expression, in instance, out *string) bool {
	v, ok := known(ev, x, in, cty.String)
	if ok && !v.IsNull() {
		*out = v.AsString()
	}
	return ok
}

func boolean(ev *evaluator, x hclsyntax.Expression, in instance, out *bool) bool {
	v, ok := known(ev, x, in, cty.Bool)
	if ok && !v.IsNull() {
		*out = v.True()
	}
	return ok
}

func priority(ev *evaluator, x hclsyntax.Expression, in instance, out **int) bool {
	v, ok := known(ev, x, in, cty.Number)
	if ok && !v.IsNull() {
		n, acc := v.AsBigFloat().Int64()
		if acc != big.Exact {
			return false
		}
		p := int(n)
		*out = &p
	}
	return ok
}

func stringList(ev *evaluator, x hclsyntax.Expression, in instance, out *[]string) bool {
	v, ok := known(ev, x, in, cty.List(cty.String))
	if ok && !v.IsNull() {
		for _, e := range v.AsValueSlice() {
			*out = append(*out, e.AsString())
		}
	}
	return ok
}

// known evaluates x for an instance, converted to want; true with null when x is nil.
func known(ev *evaluator, x hclsyntax.Expression, in instance, want cty.Type) (cty.Value, bool) {
	if x == nil {
		return cty.NullVal(want), true
	}
	v := ev.value(x, in.vars)
	if !v.IsWhollyKnown() {
		return cty.NilVal, false
	}
	c, err := convert.Convert(v, want)
	if err != nil {
		return cty.NilVal, false
	}
	return c, true
}
