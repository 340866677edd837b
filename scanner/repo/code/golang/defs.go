package golang

import (
	"go/ast"
	"go/token"
)

// def is what a scope does with one name.
type def struct {
	// count is how many times the name is declared or assigned in the scope (parameters,
	// range variables and op-assignments count, without a value).
	count int32
	state uint8
	// constant is true for a const, which nothing can assign again.
	constant bool
	// declared is true when the scope declares the name itself (:=, var, const, a
	// parameter); an assignment alone writes a package-level variable.
	declared bool
	pos      token.Pos
	name     string
	// expr is the value of the last declaration or assignment, nil when it had none.
	expr  ast.Expr
	scope ast.Node
	v     *val
}

const (
	unresolved uint8 = iota
	resolving
	resolved
)

// scopeDefs are the definitions of one scope: a function, a package-level function
// literal, or the package's own consts and vars.
type scopeDefs struct {
	node ast.Node // nil for the package
	list []def
	// names indexes list once it is too long to search.
	names map[string]int32
}

// maxLinear is how many names a scope holds before they are indexed by a map (most
// functions have fewer; searching them is faster than hashing).
const maxLinear = 24

// index returns the index of name in list, or -1.
func (sd *scopeDefs) index(name string) int {
	if sd.names != nil {
		if i, ok := sd.names[name]; ok {
			return int(i)
		}
		return -1
	}
	for i := range sd.list {
		if sd.list[i].name == name {
			return i
		}
	}
	return -1
}

// defs tells which names stand for a known string: a name declared or assigned exactly
// once in its scope with a value that folds (and, for a package-level variable, never
// assigned by a function). A function's names are collected the first time a value in it
// uses a name, so functions that build no strings from names cost nothing.
type defs struct {
	file   *ast.File
	pkg    *scopeDefs
	scopes map[ast.Node]*scopeDefs
	// reassigned are the package-level variables some function assigns; nil until needed.
	reassigned map[string]bool
}

func newDefs(f *ast.File) *defs {
	d := &defs{file: f, pkg: &scopeDefs{}, scopes: map[ast.Node]*scopeDefs{}}
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok != token.IMPORT {
			for _, spec := range g.Specs {
				if s, ok := spec.(*ast.ValueSpec); ok {
					d.pkg.valueSpec(s, g.Tok == token.CONST)
				}
			}
		}
	}
	return d
}

// get returns the definition of name in scope (nil: the package), or nil.
func (d *defs) get(scope ast.Node, name string) *def {
	sd := d.pkg
	if scope != nil {
		sd = d.scope(scope)
	}
	if i := sd.index(name); i >= 0 {
		return &sd.list[i]
	}
	return nil
}

// scope returns the definitions of a function or package-level function literal.
func (d *defs) scope(n ast.Node) *scopeDefs {
	sd := d.scopes[n]
	if sd == nil {
		sd = &scopeDefs{node: n, list: make([]def, 0, 16)}
		ast.Inspect(n, sd.visit)
		d.scopes[n] = sd
	}
	return sd
}

// isReassigned reports whether some function assigns the package-level variable name
// without declaring it.
func (d *defs) isReassigned(name string) bool {
	if d.reassigned == nil {
		d.reassigned = map[string]bool{}
		for _, n := range d.scopeNodes() {
			sd := d.scope(n)
			for i := range sd.list {
				if !sd.list[i].declared {
					d.reassigned[sd.list[i].name] = true
				}
			}
		}
	}
	return d.reassigned[name]
}

// scopeNodes lists the file's functions and package-level function literals.
func (d *defs) scopeNodes() []ast.Node {
	var nodes []ast.Node
	for _, decl := range d.file.Decls {
		if _, ok := decl.(*ast.FuncDecl); ok {
			nodes = append(nodes, decl)
			continue
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				nodes = append(nodes, lit)
				return false
			}
			return true
		})
	}
	return nodes
}

func (sd *scopeDefs) valueSpec(s *ast.ValueSpec, constant bool) {
	for i, name := range s.Names {
		var value ast.Expr
		if len(s.Values) == len(s.Names) {
			value = s.Values[i]
		}
		sd.add(name, value, true, constant)
	}
}

// add counts one declaration or assignment of id.
func (sd *scopeDefs) add(id *ast.Ident, value ast.Expr, declared, constant bool) {
	if id == nil || id.Name == "_" {
		return
	}
	i := sd.index(id.Name)
	if i < 0 {
		i = len(sd.list)
		sd.list = append(sd.list, def{name: id.Name, scope: sd.node})
		if sd.names != nil {
			sd.names[id.Name] = int32(i)
		} else if len(sd.list) > maxLinear {
			sd.names = make(map[string]int32, 2*len(sd.list))
			for j := range sd.list {
				sd.names[sd.list[j].name] = int32(j)
			}
		}
	}
	x := &sd.list[i]
	x.count++
	x.expr, x.pos = value, id.Pos()
	x.declared = x.declared || declared
	x.constant = constant
}

// visit adds the names a function declares or assigns.
func (sd *scopeDefs) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.StructType, *ast.InterfaceType:
		return false // field and method names are not variables
	case *ast.FuncType:
		sd.fields(n.TypeParams)
		sd.fields(n.Params)
		sd.fields(n.Results)
		return false
	case *ast.FuncDecl:
		sd.fields(n.Recv)
	case *ast.AssignStmt:
		sd.assign(n)
	case *ast.RangeStmt:
		sd.add(ident(n.Key), nil, n.Tok == token.DEFINE, false)
		sd.add(ident(n.Value), nil, n.Tok == token.DEFINE, false)
	case *ast.GenDecl:
		for _, s := range n.Specs {
			if s, ok := s.(*ast.ValueSpec); ok {
				sd.valueSpec(s, n.Tok == token.CONST)
			}
		}
	}
	return true
}

func (sd *scopeDefs) fields(l *ast.FieldList) {
	if l == nil {
		return
	}
	for _, f := range l.List {
		for _, name := range f.Names {
			sd.add(name, nil, true, false)
		}
	}
}

func (sd *scopeDefs) assign(s *ast.AssignStmt) {
	plain := s.Tok == token.DEFINE || s.Tok == token.ASSIGN
	for i, l := range s.Lhs {
		var value ast.Expr
		if plain && len(s.Lhs) == len(s.Rhs) {
			value = s.Rhs[i]
		}
		sd.add(ident(l), value, s.Tok == token.DEFINE, false)
	}
}

func ident(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}
