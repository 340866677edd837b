package golang

import (
	"go/ast"
	"go/token"
	"strings"
	"unicode/utf8"
)

// specialKind says how a call builds a string from its arguments.
type specialKind uint8

const (
	format    specialKind = iota + 1 // printf-style: the format with a hole per verb
	slashJoin                        // path.Join and the like: pieces joined with "/"
	sepJoin                          // strings.Join of a slice literal with a literal separator
)

// spec is a call that builds a string.
type spec struct {
	kind specialKind
	// arg is the index of the format argument.
	arg int
	// sink is true for a call that writes or logs its format instead of returning it: the
	// value is that call's argument.
	sink bool
}

// formats are the printf-like functions by name: where the format is, and whether the call
// returns the string (Sprintf) or uses it itself (Printf).
var formats = map[string]spec{
	"Sprintf":  {kind: format},
	"Errorf":   {kind: format},
	"Newf":     {kind: format},
	"Wrapf":    {kind: format, arg: 1},
	"Appendf":  {kind: format, arg: 1},
	"Printf":   {kind: format, sink: true},
	"Fprintf":  {kind: format, arg: 1, sink: true},
	"Logf":     {kind: format, sink: true},
	"Debugf":   {kind: format, sink: true},
	"Infof":    {kind: format, sink: true},
	"Warnf":    {kind: format, sink: true},
	"Warningf": {kind: format, sink: true},
	"Fatalf":   {kind: format, sink: true},
	"Panicf":   {kind: format, sink: true},
	"Tracef":   {kind: format, sink: true},
	"Skipf":    {kind: format, sink: true},
}

// special reports whether e builds a string this reader folds: a format call whose format
// is a literal (or a name for one), or a path join.
func (w *walker) special(e *ast.CallExpr) (spec, bool) {
	var pkg, name string
	switch f := e.Fun.(type) {
	case *ast.SelectorExpr:
		name = f.Sel.Name
		if x, ok := f.X.(*ast.Ident); ok {
			pkg = x.Name
		}
	case *ast.Ident:
		name = f.Name
	default:
		return spec{}, false
	}
	if sp, ok := formats[name]; ok {
		return sp, len(e.Args) > sp.arg && w.formatArg(e.Args[sp.arg])
	}
	switch pkg + "." + name {
	case "path.Join", "filepath.Join", "url.JoinPath":
		return spec{kind: slashJoin}, len(e.Args) > 0
	case "strings.Join":
		if len(e.Args) == 2 {
			_, ok := e.Args[0].(*ast.CompositeLit)
			return spec{kind: sepJoin}, ok
		}
	}
	return spec{}, false
}

// formatArg reports whether a format argument is (or names) literal text.
func (w *walker) formatArg(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.BinaryExpr:
		return e.Op == token.ADD
	case *ast.ParenExpr:
		return w.formatArg(e.X)
	case *ast.Ident:
		return w.lookup(e) != nil
	}
	return false
}

// foldSpecial records the call e, appends the string it builds to v and returns the call's
// index (-1 while not emitting) and where the value starts.
func (w *walker) foldSpecial(e *ast.CallExpr, sp spec, v *val) (int, token.Pos) {
	idx := w.record(e)
	w.walkIf(e.Fun, none)
	switch sp.kind {
	case format:
		w.foldFormat(e, sp.arg, idx, v)
		return idx, e.Args[sp.arg].Pos()
	case slashJoin:
		w.foldJoin(e.Args, idx, v)
	case sepJoin:
		w.foldSepJoin(e, idx, v)
	}
	return idx, e.Args[0].Pos()
}

// foldArgs folds each argument of call idx, the first being argument number first (-1 for
// the members of a slice literal); those that stay unused are reported as values of their
// own by emitUnused.
func (w *walker) foldArgs(args []ast.Expr, first, idx int) []*val {
	vals := make([]*val, len(args))
	for i, a := range args {
		c := ctx{call: idx, arg: -1}
		if first >= 0 && idx >= 0 {
			c.arg = first + i
		}
		vals[i] = &val{}
		w.fold(a, vals[i], c)
	}
	return vals
}

// emitUnused reports the arguments not used as text. A name alone is not reported again
// where it is used, even when its value is known.
func (w *walker) emitUnused(args []ast.Expr, vals []*val, used []bool, first, idx int) {
	for i, a := range args {
		if _, name := ast.Unparen(a).(*ast.Ident); !used[i] && !name {
			w.emitStr(vals[i], a.Pos(), a.End(), ctx{call: idx, arg: first + i})
		}
	}
}

// foldFormat appends the value of a printf-style call: the format's text with each verb
// replaced by its argument when that is a string value for %s or %v, else by a hole named
// after the argument.
func (w *walker) foldFormat(e *ast.CallExpr, at, idx int, v *val) {
	for i, a := range e.Args[:at] {
		w.walkIf(a, ctx{call: idx, arg: i})
	}
	f := &val{}
	w.fold(e.Args[at], f, none)
	args := e.Args[at+1:]
	fm := formatter{w: w, args: args, vals: w.foldArgs(args, at+1, idx), used: make([]bool, len(args)), out: v}
	fm.run(f)
	w.emitUnused(args, fm.vals, fm.used, at+1, idx)
}

// formatter expands one format.
type formatter struct {
	w    *walker
	args []ast.Expr
	vals []*val
	used []bool
	out  *val
	argi int
}

func (fm *formatter) run(f *val) {
	b, h := f.b, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0:
			fm.out.hole(f.names[h])
			h++
		case '%':
			i = fm.verb(b, i)
		default:
			fm.out.b = append(fm.out.b, b[i])
		}
	}
}

// verb expands the verb starting at b[i] ('%') and returns the index of its last byte.
func (fm *formatter) verb(b []byte, i int) int {
	j := i + 1
	if j < len(b) && b[j] == '%' {
		fm.out.b = append(fm.out.b, '%')
		return j
	}
	for j < len(b) && strings.IndexByte("+-# 0", b[j]) >= 0 {
		j++
	}
	j = fm.index(b, j)
	j = fm.width(b, j)
	if j < len(b) && b[j] == '.' {
		j = fm.width(b, fm.index(b, j+1))
	}
	j = fm.index(b, j)
	if j >= len(b) || b[j] == 0 {
		fm.out.b = append(fm.out.b, b[i:j]...) // no verb: printed as written
		return j - 1
	}
	r, size := utf8.DecodeRune(b[j:])
	fm.arg(r)
	return j + size - 1
}

// index reads an explicit argument index [n] at b[j].
func (fm *formatter) index(b []byte, j int) int {
	if j >= len(b) || b[j] != '[' {
		return j
	}
	n, k := 0, j+1
	for k < len(b) && b[k] >= '0' && b[k] <= '9' && n < 1<<20 {
		n = n*10 + int(b[k]-'0')
		k++
	}
	if k < len(b) && b[k] == ']' && n > 0 {
		fm.argi = n - 1
		return k + 1
	}
	return j
}

// width skips a width or precision: digits, or * taking an argument.
func (fm *formatter) width(b []byte, j int) int {
	if j < len(b) && b[j] == '*' {
		fm.argi++
		return j + 1
	}
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}

// arg expands one verb with the next argument.
func (fm *formatter) arg(verb rune) {
	i := fm.argi
	fm.argi++
	if i < 0 || i >= len(fm.args) {
		fm.out.hole("")
		return
	}
	if lit, ok := fm.args[i].(*ast.BasicLit); ok && lit.Kind == token.INT && (verb == 'd' || verb == 'v') {
		fm.out.lit(lit.Value)
		return
	}
	if verb == 's' || verb == 'v' {
		fm.w.splice(fm.out, fm.vals[i], argIdent(fm.args[i]))
		fm.used[i] = fm.used[i] || fm.vals[i].literal()
		return
	}
	fm.out.hole(argIdent(fm.args[i]))
}

// foldJoin appends path.Join(args...): the pieces with one "/" between them, empty pieces
// left out.
func (w *walker) foldJoin(args []ast.Expr, idx int, v *val) {
	vals := w.foldArgs(args, 0, idx)
	j := &val{}
	for _, p := range vals {
		if len(p.b) == 0 {
			continue
		}
		if len(j.b) == 0 {
			j.add(p)
			continue
		}
		ends, starts := j.b[len(j.b)-1] == '/', p.b[0] == '/'
		switch {
		case ends && starts:
			p.b = p.b[1:]
		case !ends && !starts:
			j.b = append(j.b, '/')
		}
		j.add(p)
	}
	v.add(j)
}

// foldSepJoin appends strings.Join([]string{...}, sep) for a literal separator, or a hole.
func (w *walker) foldSepJoin(e *ast.CallExpr, idx int, v *val) {
	list := e.Args[0].(*ast.CompositeLit)
	sep := &val{}
	w.fold(e.Args[1], sep, ctx{call: idx, arg: 1})
	if !sep.onlyLiteral() {
		w.emitUnused(e.Args[1:], []*val{sep}, []bool{false}, 1, idx)
		w.walkIf(list, ctx{call: idx, arg: 0})
		v.hole("")
		return
	}
	w.walkIf(list.Type, none)
	vals := w.foldArgs(list.Elts, -1, idx)
	for i, p := range vals {
		if i > 0 {
			w.splice(v, sep, "")
		}
		v.add(p)
	}
}
