package golang

import (
	"go/ast"
	"go/token"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// walker visits the AST once in source order, recording calls and folding each string
// value where it starts; the values it folds are not visited again.
type walker struct {
	out *code.File
	pos *positions
	// defs says which names stand for a known string.
	defs *defs
	// scope is the function (or package-level function literal) being walked, nil at
	// package level.
	scope ast.Node
	// emit is false while a definition is folded for substitution: nothing is recorded.
	emit bool
	// root is the node walkChildren is descending from.
	root ast.Node
	// names backs the calls' Callee and ArgIdents, to allocate them in bulk.
	names []string
	// budget is how many more bytes values may copy from elsewhere (see splice).
	budget int
}

// ctx is what the value at hand is given to.
type ctx struct {
	call, arg     int
	key, assigned string
	// depth is the Key.Depth of members of a composite literal found here.
	depth int
}

var none = ctx{call: -1, arg: -1}

// walk visits n with the context c its parent gives it.
func (w *walker) walk(n ast.Node, c ctx) {
	switch n := n.(type) {
	case nil:
	case *ast.BasicLit, *ast.BinaryExpr:
		if e := n.(ast.Expr); isValue(e) {
			w.value(e, e.Pos(), c)
			return
		}
		w.walkChildren(n)
	case *ast.ParenExpr:
		w.walk(n.X, c)
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			w.walk(n.X, c)
			return
		}
		w.walkChildren(n)
	case *ast.CallExpr:
		w.callExpr(n, c)
	case *ast.CompositeLit:
		w.composite(n, c)
	case *ast.AssignStmt:
		w.assign(n)
	case *ast.ValueSpec:
		w.valueSpec(n)
	case *ast.FuncDecl:
		w.funcDecl(n)
	case *ast.FuncLit:
		w.funcLit(n)
	case *ast.ImportSpec:
	case *ast.Field:
		// Struct tags are not values the code builds.
		w.walk(n.Type, none)
	default:
		w.walkChildren(n)
	}
}

// isValue reports whether e is a string literal or a + expression, whose folding starts a
// value.
func isValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.BinaryExpr:
		return e.Op == token.ADD
	}
	return false
}

// walkChildren walks the children of n without context.
func (w *walker) walkChildren(n ast.Node) {
	saved := w.root
	w.root = n
	ast.Walk(w, n)
	w.root = saved
}

// Visit is walkChildren's ast.Visitor (a method, so that walking allocates nothing): it
// descends into the root only, and walks each child itself.
func (w *walker) Visit(n ast.Node) ast.Visitor {
	if n == nil {
		return nil
	}
	if n == w.root {
		return w
	}
	w.walk(n, none)
	return nil
}

// value folds the value e and records it as a Str starting at start, when it holds any
// literal text.
func (w *walker) value(e ast.Expr, start token.Pos, c ctx) {
	v := &val{}
	w.fold(e, v, none)
	w.emitStr(v, start, e.End(), c)
}

// emitStr records v as a Str from start to end (exclusive), given to what c says.
func (w *walker) emitStr(v *val, start, end token.Pos, c ctx) {
	if !w.emit || !v.literal() {
		return
	}
	w.out.Strings = append(w.out.Strings, code.Str{
		Value:     string(v.b),
		Pos:       w.pos.at(start),
		End:       w.pos.end(end),
		Key:       c.key,
		Assigned:  c.assigned,
		Call:      c.call,
		Arg:       c.arg,
		HoleNames: v.names,
	})
}

// callExpr records a call and walks its arguments as given to it; a format or path join
// call is folded as a value instead (it is still recorded).
func (w *walker) callExpr(e *ast.CallExpr, c ctx) {
	if sp, ok := w.special(e); ok {
		v := &val{}
		idx, start := w.foldSpecial(e, sp, v)
		if sp.sink && idx >= 0 {
			c = ctx{call: idx, arg: sp.arg}
		}
		w.emitStr(v, start, e.End(), c)
		return
	}
	idx := w.record(e)
	w.walk(e.Fun, none)
	for i, a := range e.Args {
		// The key is passed on to the arguments for SDK value wrappers:
		// Expression: pulumi.String("..."), Name: cloudflare.F("...").
		w.walk(a, ctx{call: idx, arg: i, key: c.key})
	}
}

// record adds e to the file's calls and returns its index (-1 while not emitting).
func (w *walker) record(e *ast.CallExpr) int {
	if !w.emit {
		return -1
	}
	start := len(w.names)
	w.names = chain(e.Fun, w.names)
	call := code.Call{
		Callee: w.names[start:len(w.names):len(w.names)],
		Pos:    w.pos.at(namePos(e.Fun)),
		End:    w.pos.at(e.Rparen),
	}
	if len(e.Args) > 0 {
		start = len(w.names)
		for _, a := range e.Args {
			w.names = append(w.names, argIdent(a))
		}
		call.ArgIdents = w.names[start:len(w.names):len(w.names)]
	}
	w.out.Calls = append(w.out.Calls, call)
	return len(w.out.Calls) - 1
}

// chain appends the dotted name of a callee to dst, skipping calls, indexes and parentheses
// in between: x.Foo().Bar is [x Foo Bar], m[k].Get is [m Get].
func chain(e ast.Expr, dst []string) []string {
	switch e := e.(type) {
	case *ast.Ident:
		return append(dst, e.Name)
	case *ast.SelectorExpr:
		return append(chain(e.X, dst), e.Sel.Name)
	case *ast.CallExpr:
		return chain(e.Fun, dst)
	case *ast.IndexExpr:
		return chain(e.X, dst)
	case *ast.IndexListExpr:
		return chain(e.X, dst)
	case *ast.ParenExpr:
		return chain(e.X, dst)
	case *ast.StarExpr:
		return chain(e.X, dst)
	case *ast.TypeAssertExpr:
		return chain(e.X, dst)
	}
	return dst
}

// namePos is where the called name (the last element of the callee) starts.
func namePos(e ast.Expr) token.Pos {
	switch e := e.(type) {
	case nil:
		return token.NoPos
	case *ast.SelectorExpr:
		return e.Sel.Pos()
	case *ast.IndexExpr:
		return namePos(e.X)
	case *ast.IndexListExpr:
		return namePos(e.X)
	case *ast.ParenExpr:
		return namePos(e.X)
	}
	return e.Pos()
}

// argIdent is the identifier an argument passes: x, the last name of p.ZoneID, or x of &x.
func argIdent(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.ParenExpr:
		return argIdent(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return argIdent(e.X)
		}
	}
	return ""
}

// composite walks a composite literal's members: each value under its key, and the keys as
// the enclosing call's Keys when the literal is passed to one.
func (w *walker) composite(e *ast.CompositeLit, c ctx) {
	w.walk(e.Type, none)
	in := ctx{call: c.call, arg: -1, key: c.key, depth: c.depth}
	if c.call < 0 {
		in = ctx{call: -1, arg: -1, key: c.key}
	}
	for _, elt := range e.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			w.walk(elt, in)
			continue
		}
		name := keyName(kv.Key)
		if name == "" || isValue(kv.Key) {
			// A string key is a value too; any other expression may hold calls.
			w.walk(kv.Key, ctx{call: in.call, arg: -1})
		}
		if name != "" && c.call >= 0 && w.emit {
			call := &w.out.Calls[c.call]
			call.Keys = append(call.Keys, code.Key{Name: name, Pos: w.pos.at(kv.Key.Pos()), Depth: c.depth})
		}
		w.walk(kv.Value, ctx{call: in.call, arg: -1, key: name, depth: c.depth + 1})
	}
}

// keyName is the name of a composite literal key: a field name or a string map key.
func keyName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return unquote(e.Value)
		}
	}
	return ""
}

// assign walks an assignment, each value assigned to its variable.
func (w *walker) assign(s *ast.AssignStmt) {
	for _, l := range s.Lhs {
		if _, ok := l.(*ast.Ident); !ok {
			w.walk(l, none)
		}
	}
	for i, r := range s.Rhs {
		name := ""
		if len(s.Lhs) == len(s.Rhs) {
			name = lhsName(s.Lhs[i])
		} else if len(s.Rhs) == 1 && len(s.Lhs) > 0 {
			name = lhsName(s.Lhs[0]) // u, err := url.JoinPath(...)
		}
		w.walk(r, ctx{call: -1, arg: -1, assigned: name})
	}
}

// lhsName is the variable or field an assignment writes: x, or URL in req.URL = ....
func lhsName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Name != "_" {
			return e.Name
		}
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return lhsName(e.X)
	case *ast.ParenExpr:
		return lhsName(e.X)
	}
	return ""
}

// valueSpec walks a const or var declaration, each value assigned to its name.
func (w *walker) valueSpec(s *ast.ValueSpec) {
	w.walk(s.Type, none)
	for i, v := range s.Values {
		name := ""
		if len(s.Names) == len(s.Values) {
			name = lhsName(s.Names[i])
		}
		w.walk(v, ctx{call: -1, arg: -1, assigned: name})
	}
}

// funcDecl records a function or method the file defines and walks it in its own scope.
func (w *walker) funcDecl(d *ast.FuncDecl) {
	if d.Name != nil && d.Name.Name != "" && d.Name.Name != "_" {
		w.out.Decls = append(w.out.Decls, d.Name.Name)
		w.out.Funcs = append(w.out.Funcs, code.Func{Name: d.Name.Name, Method: d.Recv != nil, Pos: w.pos.at(d.Pos()), End: w.pos.end(d.End())})
	}
	saved := w.scope
	w.scope = d
	if d.Recv != nil {
		w.walk(d.Recv, none)
	}
	if d.Type != nil {
		w.walk(d.Type, none)
	}
	if d.Body != nil {
		w.walk(d.Body, none)
	}
	w.scope = saved
}

// funcLit walks a function literal; one at package level is a scope of its own.
func (w *walker) funcLit(f *ast.FuncLit) {
	saved := w.scope
	if w.scope == nil {
		w.scope = f
	}
	if f.Type != nil {
		w.walk(f.Type, none)
	}
	if f.Body != nil {
		w.walk(f.Body, none)
	}
	w.scope = saved
}
