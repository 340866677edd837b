package repo

import (
	"fmt"
	"slices"
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
	fields  map[string]string // field name -> rule id
	finders []finder          // the field names, for prefilters
}

func newExprRules(cat *catalog.Catalog) *exprRules {
	r := &exprRules{fields: map[string]string{}}
	for _, e := range cat.Entries() {
		for _, f := range e.Match.ExpressionFields {
			if _, ok := r.fields[f]; !ok {
				r.finders = append(r.finders, newFinder([]byte(f)))
			}
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
	// lines says which file line holds each offset of the expression's text, for an
	// expression written over several lines (a heredoc, a YAML block scalar, a list file);
	// file is the file it is in. Without them every field is at loc.
	lines *lineMap
	file  *lineIndex
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
	r.fieldHits(x, expr.ScanFields(src), add)
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

// fieldGroup is the deprecated fields of one rule on one line of an expression: one finding.
type fieldGroup struct {
	rule  vocab.RuleID
	line  int // 0: the expression's own location
	names []string
	first string // the first on the line, where the finding points
}

// fieldHits reports the deprecated fields of an expression once per rule and line: an
// expression on one line is one finding per rule however many of its fields it uses, and
// one written over several lines is reported at each line holding one. The address names a
// field (the first of the group not named by an earlier line, so that every field keeps the
// address it had when fields were reported once per expression); a repeated address gets
// its occurrence number.
func (r *exprRules) fieldHits(x exprSite, refs []expr.Ref, add func(hit)) {
	var groups []*fieldGroup
	for _, ref := range refs {
		rule, ok := r.fields[ref.Name]
		if !ok {
			continue
		}
		line := x.lines.line(int(ref.Pos))
		if line == x.loc.StartLine {
			line = 0
		}
		i := slices.IndexFunc(groups, func(g *fieldGroup) bool { return g.rule == vocab.RuleID(rule) && g.line == line })
		if i < 0 {
			groups = append(groups, &fieldGroup{rule: vocab.RuleID(rule), line: line, first: ref.Name})
			i = len(groups) - 1
		}
		if !slices.Contains(groups[i].names, ref.Name) {
			groups[i].names = append(groups[i].names, ref.Name)
		}
	}
	named := map[string]bool{}
	for _, g := range groups {
		sort.Strings(g.names)
		f := g.names[0]
		for _, n := range g.names {
			if !named[string(g.rule)+" "+n] {
				f = n
				break
			}
		}
		named[string(g.rule)+" "+f] = true
		loc := x.loc
		if g.line > 0 {
			loc = x.file.nameAt(g.line, g.first)
		}
		add(hit{
			rule: g.rule, kind: vocab.KindExpression, id: x.id, name: f,
			address: x.address + " field " + f,
			msg:     "expression of " + x.address + " uses " + strings.Join(g.names, ", "), loc: loc,
		})
	}
}
