package golang

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// val is a value being folded: literal bytes with code.Hole for each unknown part, and the
// name of each hole.
type val struct {
	b     []byte
	names []string
}

// lit appends literal text. A NUL in the text would read as a hole, so it becomes one.
func (v *val) lit(s string) {
	for s != "" {
		i := strings.IndexByte(s, code.Hole)
		if i < 0 {
			v.b = append(v.b, s...)
			return
		}
		v.b = append(v.b, s[:i]...)
		v.hole("")
		s = s[i+1:]
	}
}

// hole appends an unknown part; one next to another hole merges with it, keeping the first
// name given.
func (v *val) hole(name string) {
	if n := len(v.b); n > 0 && v.b[n-1] == code.Hole {
		if last := len(v.names) - 1; v.names[last] == "" {
			v.names[last] = name
		}
		return
	}
	v.b = append(v.b, code.Hole)
	v.names = append(v.names, name)
}

// add appends another value.
func (v *val) add(o *val) {
	h := 0
	start := 0
	for i, c := range o.b {
		if c != code.Hole {
			continue
		}
		v.b = append(v.b, o.b[start:i]...)
		v.hole(o.names[h])
		h++
		start = i + 1
	}
	v.b = append(v.b, o.b[start:]...)
}

// literal reports whether v holds any literal text.
func (v *val) literal() bool {
	return len(v.b) > len(v.names)
}

// onlyLiteral reports whether v is literal text without holes.
func (v *val) onlyLiteral() bool {
	return len(v.names) == 0
}

// fold appends the value of e to v. Operands it cannot fold become holes, and are walked
// (with context c) so the calls and strings inside them are still read.
func (w *walker) fold(e ast.Expr, v *val, c ctx) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			v.lit(unquote(e.Value))
			return
		}
		v.hole("")
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			w.fold(e.X, v, none)
			w.fold(e.Y, v, none)
			return
		}
		v.hole("")
		w.walkIf(e, c)
	case *ast.ParenExpr:
		w.fold(e.X, v, c)
	case *ast.Ident:
		if s := w.lookup(e); s != nil {
			w.splice(v, s, e.Name)
			return
		}
		v.hole(e.Name)
	case *ast.SelectorExpr:
		v.hole(e.Sel.Name)
		w.walkIf(e.X, none)
	case *ast.CallExpr:
		if sp, ok := w.special(e); ok {
			w.foldSpecial(e, sp, v)
			return
		}
		v.hole("")
		w.walkIf(e, c)
	default:
		v.hole("")
		w.walkIf(e, c)
	}
}

// splice appends o, a value written elsewhere in the file (a constant's, a format
// argument's), to v; a hole named name instead once the file's budget for copies is spent,
// so that values built from values built from values stay as large as the file at most.
func (w *walker) splice(v, o *val, name string) {
	if len(o.b) > w.budget {
		v.hole(name)
		return
	}
	w.budget -= len(o.b)
	v.add(o)
}

func (w *walker) walkIf(e ast.Node, c ctx) {
	if w.emit {
		w.walk(e, c)
	}
}

// lookup returns the value of a name the file assigns a foldable string once (see defs),
// or nil.
func (w *walker) lookup(id *ast.Ident) *val {
	if w.scope != nil {
		if d := w.defs.get(w.scope, id.Name); d != nil {
			if d.count == 1 && d.expr != nil && d.pos < id.Pos() {
				return w.resolve(d)
			}
			return nil
		}
	}
	d := w.defs.get(nil, id.Name)
	if d == nil || d.count != 1 || d.expr == nil || (!d.constant && w.defs.isReassigned(id.Name)) {
		return nil
	}
	return w.resolve(d)
}

// resolve folds a definition's value once, without recording anything; nil when it has no
// literal text (or refers to itself).
func (w *walker) resolve(d *def) *val {
	switch d.state {
	case resolving:
		return nil
	case resolved:
		return d.v
	}
	d.state = resolving
	scope, emit := w.scope, w.emit
	w.scope, w.emit = d.scope, false
	v := &val{}
	w.fold(d.expr, v, none)
	w.scope, w.emit = scope, emit
	if v.literal() {
		d.v = v
	}
	d.state = resolved
	return d.v
}
