package golang

import (
	"go/ast"
	"go/token"
)

// defKey names a variable or constant in a scope: a function, a package-level function
// literal, or the package (nil).
type defKey struct {
	scope ast.Node
	name  string
}

// def is what the file does with one name in one scope.
type def struct {
	// count is how many times the name is declared or assigned in the scope (parameters,
	// range variables and op-assignments count, without a value).
	count int
	// expr is the value of the last declaration or assignment, nil when it had none.
	expr ast.Expr
	pos  token.Pos
	// constant is true for a const, which nothing can assign again.
	constant bool
	// declared is true when the scope declares the name itself (:=, var, const, a
	// parameter); an assignment alone writes a package-level variable.
	declared bool
	scope    ast.Node
	state    uint8
	v        *val
}

const (
	unresolved uint8 = iota
	resolving
	resolved
)

// defs collects the definitions of one file.
type defs struct {
	m     map[defKey]*def
	scope ast.Node
}

// collectDefs finds every name the file declares or assigns, per scope, so a name used in a
// string value can be replaced by its value when it is assigned exactly once (and, for a
// package-level variable, never assigned in a function). It also returns the names of
// package-level variables some function assigns.
func collectDefs(f *ast.File) (map[defKey]*def, map[string]bool) {
	d := &defs{m: map[defKey]*def{}}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			d.genDecl(decl)
		case *ast.FuncDecl:
			d.scope = decl
			ast.Inspect(decl, d.visit)
			d.scope = nil
		}
	}
	reassigned := map[string]bool{}
	for k, x := range d.m {
		if k.scope != nil && !x.declared {
			reassigned[k.name] = true
		}
	}
	return d.m, reassigned
}

// genDecl adds package-level consts and vars; function literals in their values are scopes
// of their own.
func (d *defs) genDecl(g *ast.GenDecl) {
	for _, spec := range g.Specs {
		s, ok := spec.(*ast.ValueSpec)
		if !ok {
			continue
		}
		d.valueSpec(s, g.Tok == token.CONST)
		for _, v := range s.Values {
			ast.Inspect(v, func(n ast.Node) bool {
				lit, ok := n.(*ast.FuncLit)
				if !ok {
					return true
				}
				d.scope = lit
				ast.Inspect(lit, d.visit)
				d.scope = nil
				return false
			})
		}
	}
}

func (d *defs) valueSpec(s *ast.ValueSpec, constant bool) {
	for i, name := range s.Names {
		var value ast.Expr
		if len(s.Values) == len(s.Names) {
			value = s.Values[i]
		}
		d.add(name, value, true, constant)
	}
}

// add counts one declaration or assignment of id.
func (d *defs) add(id *ast.Ident, value ast.Expr, declared, constant bool) {
	if id == nil || id.Name == "_" {
		return
	}
	k := defKey{d.scope, id.Name}
	x := d.m[k]
	if x == nil {
		x = &def{scope: d.scope}
		d.m[k] = x
	}
	x.count++
	x.expr, x.pos = value, id.Pos()
	x.declared = x.declared || declared
	x.constant = constant
}

// visit adds the names a function declares or assigns.
func (d *defs) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.StructType, *ast.InterfaceType:
		return false // field and method names are not variables
	case *ast.FuncType:
		d.fields(n.TypeParams)
		d.fields(n.Params)
		d.fields(n.Results)
		return false
	case *ast.FuncDecl:
		d.fields(n.Recv)
	case *ast.AssignStmt:
		d.assign(n)
	case *ast.RangeStmt:
		d.add(ident(n.Key), nil, n.Tok == token.DEFINE, false)
		d.add(ident(n.Value), nil, n.Tok == token.DEFINE, false)
	case *ast.ValueSpec:
		d.valueSpec(n, false)
	case *ast.GenDecl:
		if n.Tok == token.CONST {
			for _, s := range n.Specs {
				if s, ok := s.(*ast.ValueSpec); ok {
					d.valueSpec(s, true)
				}
			}
			return false
		}
	}
	return true
}

func (d *defs) fields(l *ast.FieldList) {
	if l == nil {
		return
	}
	for _, f := range l.List {
		for _, name := range f.Names {
			d.add(name, nil, true, false)
		}
	}
}

func (d *defs) assign(s *ast.AssignStmt) {
	plain := s.Tok == token.DEFINE || s.Tok == token.ASSIGN
	for i, l := range s.Lhs {
		var value ast.Expr
		if plain && len(s.Lhs) == len(s.Rhs) {
			value = s.Rhs[i]
		}
		d.add(ident(l), value, s.Tok == token.DEFINE, false)
	}
}

func ident(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}
