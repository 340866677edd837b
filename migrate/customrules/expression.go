package customrules

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
)

// threatField is the field whose value is always 0 now.
const threatField = "cf.threat_score"

// TranslateExpression translates one expression (renames, checks) without a
// rule around it: parse, rename deprecated fields, print canonically, check
// with CEL for the zone's plan in phase http_request_firewall_custom, and
// explain what a cf.threat_score condition does now.
func TranslateExpression(src string, opts Options) ExpressionResult {
	res := ExpressionResult{Input: src, Changes: []string{}, Diagnostics: []Diagnostic{}}
	templated := expr.IsTemplated(src)
	e, err := expr.Parse(src)
	if err != nil {
		res.Diagnostics = append(res.Diagnostics, parseDiagnostics(err, templated)...)
		return res
	}
	if templated {
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Severity: SeverityWarning, Code: CodeTemplated,
			Message: "the expression holds template placeholders inside its text; they were checked as literal text, so check the rendered expression too"})
	}
	renames, usesThreat := renameFields(e)
	res.Expression = expr.Print(e)
	res.Changes = append(res.Changes, renameChanges(renames)...)
	for _, r := range renames {
		res.Diagnostics = append(res.Diagnostics, r.diagnostic(src))
	}
	if res.Expression != applyRenames(src, renames) {
		res.Changes = append(res.Changes, "rewritten in canonical form (English operators, single spaces, only the parentheses needed)")
	}
	if n := utf8.RuneCountInString(res.Expression); n > expr.MaxLength {
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodeLength,
			Message: fmt.Sprintf("the translated expression is %d characters long; a rule expression is at most %d", n, expr.MaxLength)})
	}
	res.Diagnostics = append(res.Diagnostics, checkDiagnostics(e, src, opts)...)
	if usesThreat {
		res.Diagnostics = append(res.Diagnostics, threatDiagnostics(e, src)...)
	}
	sortDiagnostics(res.Diagnostics)
	res.Valid = !hasSeverity(res.Diagnostics, SeverityError)
	return res
}

// parseDiagnostics report an expression that does not parse: one "parse"
// error per syntax error, or one "templated" warning when it holds template
// placeholders (its syntax errors would only be about them).
func parseDiagnostics(err error, templated bool) []Diagnostic {
	if templated {
		return []Diagnostic{{Severity: SeverityWarning, Code: CodeTemplated,
			Message: "the expression holds template placeholders (such as %s, ${...} or %{...}) and cannot be checked as it is; render the template, then translate the result"}}
	}
	var list expr.ErrorList
	if !errors.As(err, &list) {
		return []Diagnostic{{Severity: SeverityError, Code: CodeParse, Message: err.Error()}}
	}
	out := make([]Diagnostic, 0, len(list))
	for _, pe := range list {
		out = append(out, Diagnostic{Severity: SeverityError, Code: CodeParse, Message: pe.Msg,
			Offset: int(pe.Pos), End: int(pe.Pos), Line: pe.Line, Column: pe.Col})
	}
	return out
}

// renameFields renames deprecated field names in place (the nodes keep their
// original positions, so the checker's diagnostics point into the source),
// and tells whether cf.threat_score is used.
func renameFields(e *expr.Expr) (renames []rename, usesThreat bool) {
	fields := catalog.Fields()
	expr.Inspect(e, func(n expr.Node) bool {
		f, ok := n.(*expr.Field)
		if !ok {
			return true
		}
		if f.Name == threatField {
			usesThreat = true
		}
		if def, ok := fields.Field(f.Name); ok && def.RenamedTo != "" {
			renames = append(renames, rename{pos: int(f.NamePos), old: f.Name, new: def.RenamedTo})
			f.Name = def.RenamedTo
		}
		return true
	})
	return renames, usesThreat
}

// checkDiagnostics are the CEL checker's diagnostics for the zone's plan in
// the custom rules phase, with this package's codes: "syntax" is "parse",
// "plan" says what needs the higher plan, and cf.threat_score is left to
// threatDiagnostics, which says what the condition does now.
func checkDiagnostics(e *expr.Expr, src string, opts Options) []Diagnostic {
	checked := celcheck.CheckAST(e, src, celcheck.Options{Plan: opts.Plan, Phase: string(Phase)})
	var out []Diagnostic
	for _, d := range checked.Diagnostics {
		switch d.Code {
		case celcheck.CodeThreatScore:
			continue
		case celcheck.CodeSyntax:
			d.Code = CodeParse
		case celcheck.CodePlan:
			d.Code = planCode(src, d)
		}
		out = append(out, d)
	}
	return out
}

// rename is one field renamed at a byte offset of the source.
type rename struct {
	pos      int
	old, new string
}

// diagnostic tells of the rename at its place in src.
func (r rename) diagnostic(src string) Diagnostic {
	line, col := expr.LineCol(src, r.pos)
	return Diagnostic{Severity: SeverityInfo, Code: CodeRenamedField,
		Message: fmt.Sprintf("%s is the deprecated name of %s: renamed", r.old, r.new),
		Offset:  r.pos, End: r.pos + len(r.old), Line: line, Column: col}
}

// renameChanges says each distinct rename once, in source order.
func renameChanges(renames []rename) []string {
	var out []string
	for _, r := range renames {
		c := fmt.Sprintf("renamed %s to %s", r.old, r.new)
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// applyRenames is src with the renames done in place, to tell a rename
// from a canonical rewrite.
func applyRenames(src string, renames []rename) string {
	if len(renames) == 0 {
		return src
	}
	var b strings.Builder
	last := 0
	for _, r := range renames {
		b.WriteString(src[last:r.pos])
		b.WriteString(r.new)
		last = r.pos + len(r.old)
	}
	b.WriteString(src[last:])
	return b.String()
}

// planCode splits the checker's "plan" code by what needs the higher plan.
func planCode(src string, d celcheck.Diagnostic) string {
	if d.Offset >= 0 && d.End <= len(src) && d.Offset < d.End {
		switch tok := src[d.Offset:d.End]; {
		case tok == "matches" || tok == "~":
			return CodePlanRegex
		case strings.HasPrefix(strings.TrimLeft(src[d.End:], " \t\r\n"), "("):
			return CodePlanFunction
		}
	}
	return CodePlanField
}

// threatDiagnostics explains every cf.threat_score condition with the score
// at 0, then what the whole expression does now.
func threatDiagnostics(e *expr.Expr, src string) []Diagnostic {
	var out []Diagnostic
	for _, c := range expr.FieldComparisons(e, threatField) {
		line, col := expr.LineCol(src, int(c.Pos()))
		msg := fmt.Sprintf("cf.threat_score is always 0 now, so `%s` compares 0", expr.Print(c))
		if v, known := expr.CompareInt(c, 0); known {
			msg = fmt.Sprintf("cf.threat_score is always 0 now, so `%s` is always %t", expr.Print(c), v)
		}
		out = append(out, Diagnostic{Severity: SeverityError, Code: CodeThreatScore, Message: msg,
			Offset: int(c.Pos()), End: int(c.End()), Line: line, Column: col})
	}
	folded, t := foldThreat(e.Root)
	var effect string
	switch {
	case t == isFalse:
		effect = "the expression never matches"
	case t == isTrue:
		effect = "the expression matches every request"
	case usesField(folded, threatField):
		effect = "the expression still depends on cf.threat_score, which is always 0"
	default:
		effect = "the expression matches as if written: " + expr.Print(folded)
	}
	out = append(out, Diagnostic{Severity: SeverityError, Code: CodeThreatScore, Message: "with cf.threat_score at 0 " + effect +
		"; it no longer means what it did: replace the condition (for example with cf.waf.score, cf.bot_management.score or a managed_challenge rule) or remove it"})
	return out
}

// tri is a truth value that may be unknown.
type tri int8

const (
	unknown tri = iota
	isTrue
	isFalse
)

func triOf(b bool) tri {
	if b {
		return isTrue
	}
	return isFalse
}

func (t tri) not() tri {
	switch t {
	case isTrue:
		return isFalse
	case isFalse:
		return isTrue
	}
	return unknown
}

// foldThreat simplifies a tree with cf.threat_score comparisons replaced by
// their value at 0. It builds new nodes where something changed and never
// modifies the input.
func foldThreat(n expr.Node) (expr.Node, tri) {
	switch n := n.(type) {
	case *expr.Comparison:
		if expr.ComparesField(n, threatField) {
			if v, known := expr.CompareInt(n, 0); known {
				return n, triOf(v)
			}
		}
	case *expr.BoolLit:
		return n, triOf(n.Value)
	case *expr.NotExpr:
		x, t := foldThreat(n.X)
		if t != unknown {
			return n, t.not()
		}
		if x != n.X {
			return &expr.NotExpr{NotPos: n.NotPos, Bang: n.Bang, X: x}, unknown
		}
	case *expr.BinaryExpr:
		return foldBinary(n)
	}
	return n, unknown
}

// foldBinary is foldThreat of "x and y", "x or y" or "x xor y".
func foldBinary(n *expr.BinaryExpr) (expr.Node, tri) {
	x, tx := foldThreat(n.X)
	y, ty := foldThreat(n.Y)
	if tx != unknown && ty != unknown {
		switch n.Op {
		case expr.OpAnd:
			return n, triOf(tx == isTrue && ty == isTrue)
		case expr.OpOr:
			return n, triOf(tx == isTrue || ty == isTrue)
		default:
			return n, triOf(tx != ty)
		}
	}
	// One side is known: and/or absorb or drop it, xor keeps the other
	// side or its negation.
	known, other := tx, y
	if tx == unknown {
		known, other = ty, x
	}
	if known != unknown {
		switch n.Op {
		case expr.OpAnd:
			if known == isFalse {
				return n, isFalse
			}
			return other, unknown
		case expr.OpOr:
			if known == isTrue {
				return n, isTrue
			}
			return other, unknown
		default:
			if known == isFalse {
				return other, unknown
			}
			return &expr.NotExpr{NotPos: other.Pos(), X: other}, unknown
		}
	}
	if x != n.X || y != n.Y {
		return &expr.BinaryExpr{X: x, Op: n.Op, OpPos: n.OpPos, OpText: n.OpText, Y: y}, unknown
	}
	return n, unknown
}

// usesField reports whether the tree uses the field.
func usesField(n expr.Node, name string) bool {
	found := false
	expr.Inspect(n, func(n expr.Node) bool {
		if f, ok := n.(*expr.Field); ok && f.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// sortDiagnostics orders diagnostics by position (set-level ones, without a
// position, last), errors first at one place, then by code and message.
func sortDiagnostics(ds []Diagnostic) {
	rank := map[string]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		al, bl := a.Line, b.Line
		if al == 0 {
			al = int(^uint(0) >> 1)
		}
		if bl == 0 {
			bl = int(^uint(0) >> 1)
		}
		if al != bl {
			return al - bl
		}
		if a.Column != b.Column {
			return a.Column - b.Column
		}
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] - rank[b.Severity]
		}
		if a.Code != b.Code {
			return strings.Compare(a.Code, b.Code)
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func hasSeverity(ds []Diagnostic, sev string) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == sev })
}
