package repo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Values outside resources. Configuration often declares records and rules as data and
// hands them to a resource elsewhere: a module's arguments, a resource's for_each map or
// list, locals, a variable's default, a .tfvars file. What is deprecated in such a value
// is reported where it is written:
//
//   - a record object whose data sets a conditional attribute (SRV data.service, data.proto,
//     data.name): when its type is the condition's value (type = "SRV"), or, when it has no
//     literal type, in the for_each of a DNS record resource (whose elements can only be
//     records), or elsewhere when it sets two or more of the condition's fields (service and
//     proto together are SRV data; a lone name is too common a word). A literal type other
//     than the condition's means there is nothing to report.
//   - a rule object: an "expression" string with an "action", or in a list under a key
//     ending in "rules" or "filters"; its deprecated fields are reported as a ruleset
//     rule's are.

// tfValues is one place holding values: its address prefix (module.dns, local, var.records,
// var for a .tfvars file) and its attributes.
type tfValues struct {
	address string
	body    *tfBody
}

// condRule is a conditional attribute rule independent of the resource type it was given
// for: the fields (paths) the condition (whenKey = whenValue) makes deprecated.
type condRule struct {
	rule      vocab.RuleID
	whenKey   string
	whenValue string
	paths     [][]string
	kinds     []string // the resource types the catalog names for it
}

// condRules groups the conditional attribute rules by rule and condition.
func condRules(attrs map[string][]attrRule) []condRule {
	var out []condRule
	kinds := make([]string, 0, len(attrs))
	for k := range attrs {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		for _, ar := range attrs[kind] {
			if ar.whenKey == "" {
				continue
			}
			i := slices.IndexFunc(out, func(c condRule) bool {
				return c.rule == ar.rule && c.whenKey == ar.whenKey && c.whenValue == ar.whenValue
			})
			if i < 0 {
				out = append(out, condRule{rule: ar.rule, whenKey: ar.whenKey, whenValue: ar.whenValue})
				i = len(out) - 1
			}
			if !slices.ContainsFunc(out[i].paths, func(p []string) bool { return slices.Equal(p, ar.path) }) {
				out[i].paths = append(out[i].paths, ar.path)
			}
			if !slices.Contains(out[i].kinds, kind) {
				out[i].kinds = append(out[i].kinds, kind)
			}
		}
	}
	return out
}

// valueNeeds is the prefilter of values outside resources: sets of literals that must all
// be in a file (indexes into lits, the rarest first). Each literal is searched for at most
// once per file, however many sets hold it.
type valueNeeds struct {
	lits []finder
	sets [][]int
}

// valueLiteralNeeds builds the prefilter: a conditional field's path with the condition's
// value (srv, service, data) or with a second field of the same condition (service, proto,
// data); "expression" with a deprecated field name.
func (r *tfRules) valueLiteralNeeds() valueNeeds {
	var v valueNeeds
	index := map[string]int{}
	add := func(lits ...string) {
		set := make([]int, 0, len(lits))
		for _, l := range lits {
			l = strings.ToLower(l)
			i, ok := index[l]
			if !ok {
				i = len(v.lits)
				index[l] = i
				v.lits = append(v.lits, newFinder([]byte(l)))
			}
			if !slices.Contains(set, i) {
				set = append(set, i)
			}
		}
		v.sets = append(v.sets, set)
	}
	for _, c := range r.conds {
		for i, p := range c.paths {
			leaf := p[len(p)-1]
			add(append([]string{c.whenValue, leaf}, p...)...)
			for _, q := range c.paths[i+1:] {
				a, b := leaf, q[len(q)-1]
				if a == "name" { // the commonest word goes last
					a, b = b, a
				}
				add(append([]string{a, b}, p...)...)
			}
		}
	}
	fields := make([]string, 0, len(r.exprs.fields))
	for f := range r.exprs.fields {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		add("expression", f)
	}
	return v
}

// valuesMayMatch reports whether lower holds every literal of one of the sets.
func (r *tfRules) valuesMayMatch(lower []byte) bool {
	var buf [32]int8 // per literal: 0 not searched yet, 1 present, -1 absent
	state := buf[:0]
	if len(r.valueNeeds.lits) > len(buf) {
		state = make([]int8, 0, len(r.valueNeeds.lits))
	}
	state = state[:len(r.valueNeeds.lits)]
	present := func(i int) bool {
		if state[i] == 0 {
			state[i] = -1
			if r.valueNeeds.lits[i].in(lower) {
				state[i] = 1
			}
		}
		return state[i] > 0
	}
	for _, set := range r.valueNeeds.sets {
		if !slices.ContainsFunc(set, func(i int) bool { return !present(i) }) {
			return true
		}
	}
	return false
}

// valueWalk is what a walk over a file's values shares.
type valueWalk struct {
	c   *Checker
	li  *lineIndex
	add func(hit)
}

// resourceValues walks the values of a resource's for_each and of its dynamic blocks'
// for_each. For a resource type with conditional attributes (a DNS record), they are
// records, unless the resource's own condition attribute is a literal that does not hold
// (type = "A").
func (r *tfRules) resourceValues(w *valueWalk, res tfResource) {
	dns := false
	for _, c := range r.conds {
		if slices.Contains(c.kinds, res.typ) && whenMay(res.body.attr(c.whenKey), c.whenValue) {
			dns = true
		}
	}
	addr := res.typ + "." + res.name
	if fe := res.body.attr("for_each"); fe != nil {
		r.walkValue(w, fe, addr, dns)
	}
	var dyn func(b *tfBody, prefix string)
	dyn = func(b *tfBody, prefix string) {
		for _, d := range b.dynamic {
			r.walkValue(w, d, prefix+".dynamic", dns)
		}
		for _, bl := range b.blocks {
			dyn(bl.body, prefix+"."+bl.typ)
		}
	}
	dyn(res.body, addr)
}

// whenMay reports whether a condition attribute may hold: absent or not a literal, or a
// literal equal to want.
func whenMay(a *tfAttr, want string) bool {
	return a == nil || !a.value().isLit || strings.EqualFold(a.lit, want)
}

// walkValue visits the objects of an attribute's value; records says they are records
// (the for_each of a DNS record resource).
func (r *tfRules) walkValue(w *valueWalk, a *tfAttr, prefix string, records bool) {
	path := prefix + "." + a.name
	if a.obj != nil {
		r.valueObject(w, a.obj, path, a.name, false, records)
	}
	for i, el := range a.tuple {
		r.valueObject(w, el, path+"["+strconv.Itoa(i)+"]", a.name, true, records)
	}
}

// valueObject checks one object of a value and walks its members. key is the member (or
// list) it is the value of, inList whether it is a list element.
func (r *tfRules) valueObject(w *valueWalk, o *tfBody, path, key string, inList, records bool) {
	r.valueRecord(w, o, path, records)
	r.valueRule(w, o, path, key, inList)
	for _, a := range o.attrs {
		r.walkValue(w, a, path, records)
	}
}

// valueRecord reports the conditional fields a record object sets (see the comment at the
// top of this file for when).
func (r *tfRules) valueRecord(w *valueWalk, o *tfBody, path string, records bool) {
	for _, c := range r.conds {
		t := o.attr(c.whenKey)
		literal := t != nil && t.value().isLit
		if literal && !strings.EqualFold(t.lit, c.whenValue) {
			continue
		}
		found := make([][]member, len(c.paths))
		n := 0
		for i, p := range c.paths {
			if found[i] = o.lookup(p); len(found[i]) > 0 {
				n++
			}
		}
		if n == 0 || (!literal && !records && n < 2) {
			continue
		}
		why := c.whenKey + " = " + c.whenValue
		if !literal {
			why = "no literal " + c.whenKey + ": it may be " + c.whenValue
		}
		for i, ms := range found {
			field := strings.Join(c.paths[i], ".")
			for _, m := range ms {
				a := path + "." + field
				if m.index > 0 {
					a = fmt.Sprintf("%s.%s[%d]", path, field, m.index)
				}
				w.add(hit{rule: c.rule, kind: vocab.KindDNSRecord, id: path, name: field, address: a,
					msg: "record " + path + " sets " + field + " (" + why + ")", loc: m.loc})
			}
		}
	}
}

// valueRule checks the expression of a rule object: an "expression" string with an
// "action", or in a list under a key ending in "rules" or "filters".
func (r *tfRules) valueRule(w *valueWalk, o *tfBody, path, key string, inList bool) {
	e := o.attr("expression")
	isRule := o.attr("action") != nil || inList && isRulesKey(key)
	if e == nil || !isRule || !e.isLit && !e.templated {
		return
	}
	x := exprSite{address: path + ".expression", kind: string(vocab.KindExpression), id: path, name: path, loc: e.loc}
	x.lines, x.file = e.lines(), w.li
	r.exprs.check(w.c, x, e.lit, e.templated, w.add)
}
