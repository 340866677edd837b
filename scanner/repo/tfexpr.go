package repo

import (
	"fmt"
	"strconv"
	"strings"
)

// resourceExpressions checks the Rules language expressions of a resource whose type holds
// them (exprResources): the expression of a filter, of each rule of a ruleset, and the
// expressions each rule holds inside its other members (nestedExpressions).
func (r *tfRules) resourceExpressions(w *valueWalk, res tfResource, addr, kind string) {
	er, ok := exprResources[res.typ]
	if !ok {
		return
	}
	phase := ""
	if er.phaseAttr != "" {
		if a := res.body.attr(er.phaseAttr); a != nil && a.value().isLit {
			phase = a.lit
		}
	}
	for _, m := range res.body.lookup(er.path) {
		if m.attr == nil {
			continue
		}
		a := addr + "." + strings.Join(er.path, ".")
		if len(er.path) > 1 {
			a = fmt.Sprintf("%s.%s[%d].%s", addr, er.path[0], m.index, strings.Join(er.path[1:], "."))
		}
		x := exprSite{address: a, kind: kind, id: addr, name: res.name, loc: m.loc, phase: phase, typeCheck: er.typeCheck}
		r.attrExpression(w, x, m.attr)
	}
	if len(er.path) != 2 {
		return
	}
	for i, rule := range res.body.nested(er.path[0]) {
		base := fmt.Sprintf("%s.%s[%d]", addr, er.path[0], i)
		nestedExpressions(rule, base, true, func(path string, at *tfAttr) {
			r.attrExpression(w, exprSite{address: path, kind: kind, id: addr, name: res.name, loc: at.loc, phase: phase}, at)
		})
	}
}

// attrExpression checks the expression an attribute holds, literal or template.
func (r *tfRules) attrExpression(w *valueWalk, x exprSite, a *tfAttr) {
	x.lines, x.file = a.lines(), w.li
	a.value()
	switch {
	case a.isLit:
		r.exprs.check(w.c, x, a.lit, false, w.add)
	case a.templated:
		r.exprs.check(w.c, x, a.lit, true, w.add)
	}
}

// nestedExpressions calls found for each expression a rule holds inside its other members,
// at any depth of blocks, objects and lists: a transform rule's header value
// (action_parameters.headers.expression = "to_string(ip.geoip.asnum)"), a rewritten path
// (action_parameters.uri.path.expression), a rate limit's counting_expression. Every
// attribute named expression or ending in _expression counts, but the rule's own
// expression (top), which the caller checks as the rule's.
func nestedExpressions(b *tfBody, path string, top bool, found func(path string, a *tfAttr)) {
	if b == nil {
		return
	}
	for _, a := range b.attrs {
		p := path + "." + a.name
		if (a.name == "expression" && !top) || strings.HasSuffix(a.name, "_expression") {
			found(p, a)
		}
		nestedExpressions(a.obj, p, false, found)
		for i, t := range a.tuple {
			nestedExpressions(t, p+"["+strconv.Itoa(i)+"]", false, found)
		}
	}
	counts := map[string]int{}
	for _, bl := range b.blocks {
		n := counts[bl.typ]
		counts[bl.typ]++
		nestedExpressions(bl.body, fmt.Sprintf("%s.%s[%d]", path, bl.typ, n), false, found)
	}
}
