package celcheck

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
)

// Severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Diagnostic codes. They are stable: callers and tests match on them.
const (
	CodeSyntax           = "syntax"               // the expression does not parse
	CodeUnknownField     = "unknown-field"        // not a field of the catalogue
	CodeUnknownFunction  = "unknown-function"     // not a function of the language
	CodeFunctionNotAllow = "function-not-allowed" // transform/redirect-only function in a filter
	CodeArity            = "arity"                // wrong number of arguments
	CodeArgumentType     = "argument-type"        // an argument of the wrong type
	CodeTypeMismatch     = "type-mismatch"        // operator and operand types do not fit
	CodeNotBoolean       = "not-boolean"          // a condition is expected
	CodeUnpack           = "unpack"               // [*] misuse
	CodeBadRegex         = "bad-regex"            // RE2 cannot compile the pattern
	CodeBadWildcard      = "bad-wildcard"         // invalid escape in a wildcard pattern
	CodePlan             = "plan"                 // needs a higher plan than the zone's
	CodePhase            = "phase"                // field not available in the phase
	CodeDeprecatedField  = "deprecated-field"     // renamed field: use the new name
	CodeThreatScore      = "threat-score"         // cf.threat_score is always 0
	CodeUnknownList      = "unknown-list"         // $list not among the known lists
	CodeInternal         = "internal"             // the checker failed in an unexpected way
)

// Diagnostic is one finding about an expression, located at the original
// token: Offset and End are byte offsets into the source, Line and Column
// are 1-based and Column counts characters (runes), like the service's
// "(1:73)" messages. A diagnostic about no place in the source (Line 0)
// has no position. It is also the diagnostic of migrate/customrules; its
// JSON form (the translate command's) carries the line and column only.
type Diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Offset   int    `json:"-"`
	End      int    `json:"-"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// String formats the diagnostic as "line:col: severity: message [code]",
// without the position when it has none.
func (d Diagnostic) String() string {
	if d.Line == 0 {
		return fmt.Sprintf("%s: %s [%s]", d.Severity, d.Message, d.Code)
	}
	return fmt.Sprintf("%d:%d: %s: %s [%s]", d.Line, d.Column, d.Severity, d.Message, d.Code)
}

// Render formats the diagnostic and, when it has a position inside src, the
// source line with a caret under the character it is about.
func (d Diagnostic) Render(src string) string {
	s := d.String()
	if d.Line < 1 || d.Column < 1 {
		return s
	}
	lines := strings.Split(src, "\n")
	if d.Line > len(lines) {
		return s
	}
	line := strings.TrimSuffix(lines[d.Line-1], "\r")
	var caret strings.Builder
	col := 1
	for _, r := range line {
		if col >= d.Column {
			break
		}
		// Keep tabs so the caret lines up whatever the tab width.
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
		col++
	}
	return s + "\n" + line + "\n" + caret.String() + "^"
}

// Options say where the expression is used.
type Options struct {
	// Plan is the zone's plan (free, pro, business, enterprise); "" means
	// unknown, and then no plan diagnostics are reported.
	Plan string
	// Phase is the ruleset phase, e.g. http_request_firewall_custom; "" means
	// a filter of a custom or firewall rule, with no phase restrictions checked.
	Phase string
	// Lists names the account's custom lists. When non-nil, a $list that is
	// neither among them nor a managed list ($cf.*) is reported as a warning.
	Lists []string
}

// Checked is the result of checking one expression.
type Checked struct {
	// Diagnostics are sorted by position, errors first at the same position.
	Diagnostics []Diagnostic
	// Valid is true when no diagnostic is an error.
	Valid bool
	// Program evaluates the expression; nil unless Valid.
	Program *Program
}

// Errors returns the error diagnostics.
func (c *Checked) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range c.Diagnostics {
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// Err returns the diagnostics that are errors as one error, or nil.
func (c *Checked) Err() error {
	var errs []error
	for _, d := range c.Errors() {
		errs = append(errs, errors.New(d.String()))
	}
	return errors.Join(errs...)
}

// Check parses src, lowers it to CEL, type-checks it against the field
// catalogue and applies the plan, phase and deprecation rules. Results are
// cached by (src, opts) in a bounded LRU; the returned value is shared and
// must not be modified.
func Check(src string, opts Options) *Checked {
	key := cacheKey(src, opts)
	if c, ok := programCache.get(key); ok {
		return c
	}
	c := checkSource(src, opts)
	programCache.put(key, c)
	return c
}

// checkSource is Check without the cache.
func checkSource(src string, opts Options) *Checked {
	e, err := expr.Parse(src)
	if err != nil {
		return syntaxErrors(src, err)
	}
	return checkAST(e, src, opts)
}

// CheckAST checks an already parsed (and perhaps rewritten) expression.
// Positions in diagnostics are offsets into src, which should be the text
// the AST's positions refer to (e.Src when src is empty). It is not cached.
func CheckAST(e *expr.Expr, src string, opts Options) *Checked {
	if src == "" {
		src = e.Src
	}
	var bad *expr.BadNode
	expr.Inspect(e, func(n expr.Node) bool {
		if b, ok := n.(*expr.BadNode); ok && bad == nil {
			bad = b
		}
		return bad == nil
	})
	if bad != nil {
		c := &Checked{}
		c.Diagnostics = []Diagnostic{newDiag(src, SeverityError, CodeSyntax, bad.From, bad.To, "the expression has a part that did not parse")}
		return c
	}
	return checkAST(e, src, opts)
}

func syntaxErrors(src string, err error) *Checked {
	c := &Checked{}
	var list expr.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			c.Diagnostics = append(c.Diagnostics, newDiag(src, SeverityError, CodeSyntax, e.Pos, e.Pos, e.Msg))
		}
	} else {
		c.Diagnostics = []Diagnostic{newDiag(src, SeverityError, CodeSyntax, 0, 0, err.Error())}
	}
	return c
}

func checkAST(e *expr.Expr, src string, opts Options) *Checked {
	env, err := sharedEnv()
	if err != nil {
		return &Checked{Diagnostics: []Diagnostic{newDiag(src, SeverityError, CodeInternal, 0, 0, err.Error())}}
	}
	l := newLowerer(env, src)
	root := l.lowerRoot(e.Root)
	checked, errs := checker.Check(ast.NewAST(root, ast.NewSourceInfo(nil)), nil, env.checker)
	diags := l.diags
	typeErrors := len(errs.GetErrors())
	for _, ce := range errs.GetErrors() {
		if d, ok := l.explain(ce.ExprID, ce.Message, checked); ok {
			diags = append(diags, d)
		}
	}
	if typeErrors == 0 && len(l.diags) == 0 {
		if t := checked.GetType(checked.Expr().ID()); t.Kind() != types.BoolKind {
			diags = append(diags, newDiag(src, SeverityError, CodeNotBoolean, e.Root.Pos(), e.Root.End(),
				fmt.Sprintf("the expression is %s, not a condition (Bool)%s", rulesTypeName(t), boolHint(e.Root))))
		}
	}
	diags = append(diags, policy(e, src, env, opts)...)
	c := &Checked{Diagnostics: sortDiags(diags), Valid: true}
	for _, d := range c.Diagnostics {
		if d.Severity == SeverityError {
			c.Valid = false
			break
		}
	}
	if c.Valid {
		c.Program = newProgram(env, checked, src)
	}
	return c
}

func boolHint(root expr.Node) string {
	if _, ok := root.(*expr.Field); ok {
		return "; compare it with an operator, such as eq"
	}
	return ""
}

func sortDiags(d []Diagnostic) []Diagnostic {
	rank := map[string]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	slices.SortStableFunc(d, func(a, b Diagnostic) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] - rank[b.Severity]
		}
		return strings.Compare(a.Code, b.Code)
	})
	// The same message twice at one place says nothing more.
	return slices.CompactFunc(d, func(a, b Diagnostic) bool { return a == b })
}

func newDiag(src, sev, code string, pos, end expr.Pos, msg string) Diagnostic {
	line, col := expr.LineCol(src, int(pos))
	if end < pos {
		end = pos
	}
	return Diagnostic{Severity: sev, Code: code, Message: msg, Offset: int(pos), End: int(end), Line: line, Column: col}
}

// explain turns one checker error into a diagnostic at the original token.
// ok is false when the error is a consequence of one already reported.
func (l *lowerer) explain(id int64, msg string, checked *ast.AST) (Diagnostic, bool) {
	if id <= 0 || int(id) >= len(l.metas) {
		return newDiag(l.src, SeverityError, CodeInternal, 0, expr.Pos(len(l.src)), "type check: "+msg), true
	}
	if l.reported[id] {
		return Diagnostic{}, false
	}
	m := l.metas[id]
	// After a failed [*] only unknown fields are news; the rest follows from it.
	if l.unpackFailed && m.role != roleField {
		return Diagnostic{}, false
	}
	typeOf := checked.GetType
	switch {
	case strings.HasPrefix(msg, "undeclared reference"):
		if f, ok := m.node.(*expr.Field); ok && m.role == roleField {
			return l.errorAt(CodeUnknownField, f, "unknown field %s%s", f.Name, suggestField(l.env, f.Name))
		}
	case strings.HasPrefix(msg, "found no matching overload"):
		return l.explainOverload(m, msg, typeOf)
	case strings.HasPrefix(msg, "expected type 'bool'"):
		what := m.want
		if what == "" {
			what = "this place"
		}
		return l.errorAt(CodeNotBoolean, m.node, "%s needs a condition (Bool); %s is %s", what, l.text(m.node), rulesTypeName(typeOf(id)))
	case strings.HasPrefix(msg, "expression of type"):
		if u := m.rangeOf; u != nil {
			return l.errorAt(CodeUnpack, u, "[*] unpacks an array or a map; %s is %s", l.text(u.X), rulesTypeName(typeOf(id)))
		}
	}
	return l.unexplained(m, msg)
}

// errorAt is an error diagnostic covering node n.
func (l *lowerer) errorAt(code string, n expr.Node, format string, args ...any) (Diagnostic, bool) {
	return newDiag(l.src, SeverityError, code, n.Pos(), n.End(), fmt.Sprintf(format, args...)), true
}

// unexplained reports a checker error this package has no words for, with
// the checker's own message.
func (l *lowerer) unexplained(m meta, msg string) (Diagnostic, bool) {
	return l.errorAt(CodeTypeMismatch, m.node, "%s: %s", l.text(m.node), msg)
}

// explainOverload explains an operator, function, index or connective that
// has no overload for its operands' types, by the role of the node.
func (l *lowerer) explainOverload(m meta, msg string, typeOf func(int64) *types.Type) (Diagnostic, bool) {
	for _, a := range m.args {
		if t := typeOf(a); t.Kind() == types.ErrorKind {
			return Diagnostic{}, false // explained where the argument failed
		}
	}
	switch m.role {
	case roleCompare:
		return l.explainComparison(m, typeOf)
	case roleCall:
		return l.explainCall(m, typeOf)
	case roleJSONKey:
		return l.errorAt(CodeArgumentType, m.node, "a key of lookup_json_* is a String (object member) or an Int (array index); %s is %s", l.text(m.node), rulesTypeName(typeOf(m.args[0])))
	case roleIndex:
		return l.explainIndex(m, typeOf)
	case roleNot:
		n := m.node.(*expr.NotExpr)
		return l.errorAt(CodeNotBoolean, n.X, "not needs a condition (Bool); %s is %s", l.text(n.X), rulesTypeName(typeOf(m.args[0])))
	case roleXor:
		b := m.node.(*expr.BinaryExpr)
		for i, side := range []expr.Node{b.X, b.Y} {
			if t := typeOf(m.args[i]); t.Kind() != types.BoolKind {
				return l.errorAt(CodeNotBoolean, side, "xor needs conditions (Bool) on both sides; %s is %s", l.text(side), rulesTypeName(t))
			}
		}
	}
	return l.unexplained(m, msg)
}

// explainIndex says how the indexed value may be indexed, if at all.
func (l *lowerer) explainIndex(m meta, typeOf func(int64) *types.Type) (Diagnostic, bool) {
	ix := m.node.(*expr.IndexExpr)
	t := typeOf(m.args[0])
	switch t.Kind() {
	case types.ListKind:
		return l.errorAt(CodeTypeMismatch, ix.Index, "%s is %s: index it with an integer, such as [0]", l.text(ix.X), rulesTypeName(t))
	case types.MapKind:
		return l.errorAt(CodeTypeMismatch, ix.Index, "%s is %s: index it with a \"key\" string", l.text(ix.X), rulesTypeName(t))
	}
	return l.errorAt(CodeTypeMismatch, ix, "%s is %s, which has no elements to index; only arrays and maps take [...]", l.text(ix.X), rulesTypeName(t))
}

// explainComparison says which side of a comparison does not fit.
func (l *lowerer) explainComparison(m meta, typeOf func(int64) *types.Type) (Diagnostic, bool) {
	c := m.node.(*expr.Comparison)
	lt := typeOf(m.args[0])
	lname := rulesTypeName(lt)
	op := c.Op.String()
	def := l.env.opDefs[op]
	applies := slices.ContainsFunc(def.Types, func(t string) bool {
		return t == lname || (t == "Bytes" && lname == "String")
	})
	if !applies {
		hint := ""
		if lt.Kind() == types.ListKind || lt.Kind() == types.MapKind {
			hint = fmt.Sprintf("; to test each element write any(%s[*] %s ...)", l.text(c.X), c.OpText)
		}
		return newDiag(l.src, SeverityError, CodeTypeMismatch, c.OpPos, c.OpPos+expr.Pos(len(c.OpText)),
			fmt.Sprintf("operator %s does not apply to %s (%s); it applies to %s%s", c.OpText, lname, l.text(c.X), strings.Join(def.Types, ", "), hint)), true
	}
	var rhs string
	switch y := c.Y.(type) {
	case *expr.SetLit:
		rhs = "a set of " + map[setKind]string{setStrings: "strings", setInts: "integers", setIPs: "IP addresses", setEmpty: "nothing"}[kindOfSet(y)]
	case *expr.ListRef:
		rhs = "the list $" + y.Name
	default:
		rhs = fmt.Sprintf("%s %s", rulesTypeName(typeOf(m.args[1])), l.text(c.Y))
	}
	return newDiag(l.src, SeverityError, CodeTypeMismatch, c.Y.Pos(), c.Y.End(),
		fmt.Sprintf("%s is %s and cannot be compared with %s using %s", l.text(c.X), lname, rhs, c.OpText)), true
}

// explainCall finds the first argument whose type the function does not take.
func (l *lowerer) explainCall(m meta, typeOf func(int64) *types.Type) (Diagnostic, bool) {
	c := m.node.(*expr.Call)
	def := l.env.funcDefs[c.Name]
	var got []string
	for i, a := range m.args {
		t := typeOf(a)
		got = append(got, rulesTypeName(t))
		if t.TypeName() == jsonKeyType.TypeName() || len(def.Params) == 0 {
			continue
		}
		want := def.Params[min(i, len(def.Params)-1)]
		if !acceptsType(want, t) {
			return newDiag(l.src, SeverityError, CodeArgumentType, c.Args[i].Pos(), c.Args[i].End(),
				fmt.Sprintf("argument %d of %s() must be %s; %s is %s", i+1, c.Name, strings.ReplaceAll(want, "|", " or "), l.text(c.Args[i]), rulesTypeName(t))), true
		}
	}
	return newDiag(l.src, SeverityError, CodeArgumentType, c.Pos(), c.End(),
		fmt.Sprintf("%s() does not take arguments of types (%s)%s", c.Name, strings.Join(got, ", "), callHint(c.Name))), true
}

func callHint(name string) string {
	if name == "concat" {
		return "; its arguments are all strings, or all arrays of one type"
	}
	return ""
}

// acceptsType reports whether a catalogue parameter type ("String|Bytes",
// "Array<Any>") takes a value of CEL type t.
func acceptsType(param string, t *types.Type) bool {
	for _, alt := range strings.Split(param, "|") {
		want, err := celType(alt)
		if err != nil {
			continue
		}
		if want.Kind() == types.ListKind && t.Kind() == types.ListKind && want.Parameters()[0].Kind() == types.TypeParamKind {
			return true
		}
		if want.IsExactType(t) || t.Kind() == types.DynKind {
			return true
		}
	}
	return false
}

// transformPhases may use the functions that custom rules may not.
var transformPhases = map[string]bool{
	"http_request_transform":           true,
	"http_request_late_transform":      true,
	"http_response_headers_transform":  true,
	string(vocab.PhaseDynamicRedirect): true,
	"http_request_redirect":            true,
}

// managedLists are the lists the service provides ($cf.*).
var managedLists = map[string]bool{
	"cf.anonymizer": true, "cf.botnetcc": true, "cf.malware": true, "cf.open_proxies": true, "cf.vpn": true,
}

// policy reports what the type checker cannot see: plans, phases,
// deprecated fields, functions not allowed in filters, unknown lists.
//
// Decisions: a plan or phase the zone cannot use is an error (the API
// rejects the rule); it is only checked when Options say the plan or phase.
// Renamed fields and cf.threat_score are warnings (the rule still works,
// but means something else or will stop working), with the replacement.
func policy(e *expr.Expr, src string, env *environment, opts Options) []Diagnostic {
	p := &policyCheck{src: src, env: env, opts: opts}
	expr.Inspect(e, func(n expr.Node) bool {
		switch n := n.(type) {
		case *expr.Field:
			p.field(n)
		case *expr.Comparison:
			p.comparison(n)
		case *expr.Call:
			p.call(n)
		}
		return true
	})
	return p.out
}

// policyCheck collects the policy diagnostics of one expression.
type policyCheck struct {
	src  string
	env  *environment
	opts Options
	out  []Diagnostic
}

func (p *policyCheck) add(sev, code string, pos, end expr.Pos, format string, args ...any) {
	p.out = append(p.out, newDiag(p.src, sev, code, pos, end, fmt.Sprintf(format, args...)))
}

// field reports a renamed or deprecated field, cf.threat_score, and a field
// the plan or phase does not have. Unknown fields are the type checker's.
func (p *policyCheck) field(n *expr.Field) {
	f, ok := p.env.fieldDefs[n.Name]
	if !ok {
		return
	}
	switch {
	case f.RenamedTo != "":
		p.add(SeverityWarning, CodeDeprecatedField, n.Pos(), n.End(), "%s is deprecated; use %s", n.Name, f.RenamedTo)
	case n.Name == "cf.threat_score":
		p.add(SeverityWarning, CodeThreatScore, n.Pos(), n.End(), "cf.threat_score is always 0 now, so this condition no longer means what it did; replace it (for example with cf.waf.score or a managed challenge) or remove it")
	case f.Deprecated:
		p.add(SeverityWarning, CodeDeprecatedField, n.Pos(), n.End(), "%s is deprecated%s", n.Name, noteSuffix(f.Note))
	}
	if p.opts.Plan != "" && !catalog.PlanAtLeast(p.opts.Plan, f.Plan) {
		p.add(SeverityError, CodePlan, n.Pos(), n.End(), "%s needs the %s plan or above; the zone is on %s", n.Name, f.Plan, p.opts.Plan)
	}
	if p.opts.Phase != "" && !f.AllowedInPhase(p.opts.Phase) {
		p.add(SeverityError, CodePhase, n.Pos(), n.End(), "%s is not available in phase %s (only in %s)", n.Name, p.opts.Phase, strings.Join(f.Phases, ", "))
	}
}

// comparison reports an operator above the zone's plan and a $list the
// account does not have.
func (p *policyCheck) comparison(n *expr.Comparison) {
	if o, ok := p.env.opDefs[n.Op.String()]; ok && p.opts.Plan != "" && !catalog.PlanAtLeast(p.opts.Plan, o.Plan) {
		p.add(SeverityError, CodePlan, n.OpPos, n.OpPos+expr.Pos(len(n.OpText)), "operator %s (regular expressions) needs the %s plan or above; the zone is on %s", n.OpText, o.Plan, p.opts.Plan)
	}
	if lr, ok := n.Y.(*expr.ListRef); ok && p.opts.Lists != nil && !managedLists[lr.Name] && !slices.Contains(p.opts.Lists, lr.Name) {
		p.add(SeverityWarning, CodeUnknownList, lr.Pos(), lr.End(), "list $%s is not among the account's lists", lr.Name)
	}
}

// call reports a function outside the phases that allow it or above the
// zone's plan. Unknown functions are the lowering's.
func (p *policyCheck) call(n *expr.Call) {
	f, ok := p.env.funcDefs[n.Name]
	if !ok {
		return
	}
	end := n.NamePos + expr.Pos(len(n.Name))
	if !f.CustomRules && !transformPhases[p.opts.Phase] {
		p.add(SeverityError, CodeFunctionNotAllow, n.NamePos, end, "%s() is not allowed in custom rules or filters%s", n.Name, noteSuffix(f.Note))
	}
	if p.opts.Plan != "" && !catalog.PlanAtLeast(p.opts.Plan, f.Plan) {
		p.add(SeverityError, CodePlan, n.NamePos, end, "%s() needs the %s plan or above; the zone is on %s", n.Name, f.Plan, p.opts.Plan)
	}
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

// suggestField proposes the closest catalogue field for an unknown name.
func suggestField(env *environment, name string) string {
	if alias, ok := fieldAliases[name]; ok {
		return fmt.Sprintf("; did you mean %s?", alias)
	}
	best, bestD := "", 4
	for _, f := range env.fieldNames {
		if d := editDistance(name, f, bestD); d < bestD {
			best, bestD = f, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// fieldAliases are names from other tools and the engine's own test scheme
// that people write for real fields.
var fieldAliases = map[string]string{
	"ip.addr":        "ip.src",
	"http.headers":   "http.request.headers",
	"http.cookies":   "http.request.cookies",
	"http.uri":       "http.request.uri",
	"http.path":      "http.request.uri.path",
	"http.method":    "http.request.method",
	"http.useragent": "http.user_agent",
}

func suggestFunction(env *environment, name string) string {
	best, bestD := "", 3
	for _, f := range env.funcNames {
		if d := editDistance(name, f, bestD); d < bestD {
			best, bestD = f, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s()?", best)
}

// editDistance is the Levenshtein distance, or limit when it is at least limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
