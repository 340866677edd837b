package repo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
)

// exprRules checks Rules language expressions found in files: deprecated fields (catalog
// match.expression_fields) and validity (parse and type check with celcheck).
type exprRules struct {
	fields map[string]string // field name -> rule id
}

func newExprRules(cat *catalog.Catalog) *exprRules {
	r := &exprRules{fields: map[string]string{}}
	for _, e := range cat.Entries() {
		for _, f := range e.Match.ExpressionFields {
			r.fields[f] = string(e.ID)
		}
	}
	return r
}

// exprSite is where an expression sits: the finding fields it shares.
type exprSite struct {
	address, kind, id, name string
	loc                     scanner.Location
	phase                   string
	// typeCheck is set for expressions that must be migrated (filters, firewall rules); the
	// others (ruleset rules, the replacement) are only searched for deprecated fields.
	typeCheck bool
}

// check reports one expression:
//   - templated (Terraform ${...} or %{...}, Go fmt verbs such as %[1]s; expr.IsTemplated, or
//     an HCL template): a notice that it was not checked, never a syntax error;
//   - literal: parsed and type-checked; the first error (and the number of others) becomes a
//     warning.
//
// Either way every deprecated field the parser finds is a finding of its catalog rule: the
// placeholders of a templated expression are neutralised first (expr.ParseTemplated), and a
// tree that does not parse still names the fields around the error.
func (r *exprRules) check(c *Checker, x exprSite, src string, templated bool, add func(hit)) {
	if strings.TrimSpace(src) == "" && !templated {
		return
	}
	templated = templated || expr.IsTemplated(src)
	switch {
	case !x.typeCheck:
		if !r.mentionsField(src) {
			return
		}
	case templated:
		add(hit{
			rule: RuleExpression, sev: scanner.SeverityNotice, kind: vocab.Kind(x.kind), id: x.id, name: x.name,
			address: x.address + " templated",
			msg:     "expression of " + x.address + " holds template interpolation; it was not parsed or type-checked",
			loc:     x.loc,
		})
	default:
		r.validity(x, src, add)
	}
	e, _ := expr.ParseTemplated(src) // a partial tree still names its fields
	r.fieldHits(x, expr.Names(expr.Fields(e)), add)
}

// validity reports the first error of the parse and type check of src, and how many follow.
func (r *exprRules) validity(x exprSite, src string, add func(hit)) {
	ch := celcheck.Check(src, celcheck.Options{Phase: x.phase})
	errs := ch.Errors()
	if len(errs) == 0 {
		return
	}
	msg := fmt.Sprintf("expression of %s is invalid: %s", x.address, errs[0].String())
	if len(errs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	add(hit{
		rule: RuleExpression, sev: scanner.SeverityWarning, kind: vocab.Kind(x.kind), id: x.id, name: x.name,
		address: x.address + " invalid", msg: msg, loc: x.loc,
	})
}

// mentionsField is a cheap prefilter: whether src contains a deprecated field name at all.
func (r *exprRules) mentionsField(src string) bool {
	for f := range r.fields {
		if strings.Contains(src, f) {
			return true
		}
	}
	return false
}

// fieldHits reports each deprecated field once per expression.
func (r *exprRules) fieldHits(x exprSite, fields []string, add func(hit)) {
	seen := map[string]bool{}
	sort.Strings(fields)
	for _, f := range fields {
		rule, ok := r.fields[f]
		if !ok || seen[f] {
			continue
		}
		seen[f] = true
		add(hit{
			rule: vocab.RuleID(rule), kind: vocab.KindExpression, id: x.id, name: f,
			address: x.address + " field " + f,
			msg:     "expression of " + x.address + " uses " + f, loc: x.loc,
		})
	}
}
