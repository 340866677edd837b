package expr

import (
	"bytes"
	"sort"
)

// Visitor is called by Walk for each node. If Visit returns a non-nil
// visitor w, Walk visits the node's children with w, then calls w.Visit(nil).
type Visitor interface {
	Visit(n Node) (w Visitor)
}

// Walk traverses the tree rooted at n depth-first, in source order.
func Walk(v Visitor, n Node) {
	if n == nil {
		return
	}
	if v = v.Visit(n); v == nil {
		return
	}
	switch n := n.(type) {
	case *Expr:
		Walk(v, n.Root)
	case *BinaryExpr:
		Walk(v, n.X)
		Walk(v, n.Y)
	case *NotExpr:
		Walk(v, n.X)
	case *Comparison:
		Walk(v, n.X)
		Walk(v, n.Y)
	case *Call:
		for _, a := range n.Args {
			Walk(v, a)
		}
	case *IndexExpr:
		Walk(v, n.X)
		Walk(v, n.Index)
	case *UnpackExpr:
		Walk(v, n.X)
	case *RangeLit:
		Walk(v, n.Lo)
		Walk(v, n.Hi)
	case *SetLit:
		for _, e := range n.Elems {
			Walk(v, e)
		}
	}
	v.Visit(nil)
}

type inspector func(Node) bool

func (f inspector) Visit(n Node) Visitor {
	if f(n) {
		return f
	}
	return nil
}

// Inspect calls f for each node in source order, descending into a node's
// children only when f returns true. After the children it calls f(nil).
func Inspect(n Node, f func(Node) bool) {
	Walk(inspector(f), n)
}

// Rewrite replaces nodes bottom-up: children first, then f on the node
// itself, whose result takes the node's place. f returns its argument to
// keep a node. The tree is modified in place; the new root is returned.
// Positions of replaced nodes are whatever f gives them.
func Rewrite(n Node, f func(Node) Node) Node {
	if n == nil {
		return nil
	}
	switch x := n.(type) {
	case *Expr:
		x.Root = Rewrite(x.Root, f)
	case *BinaryExpr:
		x.X = Rewrite(x.X, f)
		x.Y = Rewrite(x.Y, f)
	case *NotExpr:
		x.X = Rewrite(x.X, f)
	case *Comparison:
		x.X = Rewrite(x.X, f)
		x.Y = Rewrite(x.Y, f)
	case *Call:
		for i, a := range x.Args {
			x.Args[i] = Rewrite(a, f)
		}
	case *IndexExpr:
		x.X = Rewrite(x.X, f)
		x.Index = Rewrite(x.Index, f)
	case *UnpackExpr:
		x.X = Rewrite(x.X, f)
	case *RangeLit:
		x.Lo = Rewrite(x.Lo, f)
		x.Hi = Rewrite(x.Hi, f)
	case *SetLit:
		for i, e := range x.Elems {
			x.Elems[i] = Rewrite(e, f)
		}
	}
	return f(n)
}

// RenameFields renames every field for which rename returns a different
// name, in place, and returns how many fields it renamed. Positions stay
// those of the original names.
func RenameFields(n Node, rename func(name string) string) int {
	count := 0
	Inspect(n, func(n Node) bool {
		if f, ok := n.(*Field); ok {
			if to := rename(f.Name); to != f.Name {
				f.Name = to
				count++
			}
		}
		return true
	})
	return count
}

// Ref is a name used by an expression and where it is used.
type Ref struct {
	Name string
	Pos  Pos
}

// FieldRef is a use of a field.
type FieldRef = Ref

// OpRef is a use of an operator.
type OpRef struct {
	Op  Op
	Pos Pos
}

func sortRefs(r []Ref) []Ref {
	sort.SliceStable(r, func(i, j int) bool { return r[i].Pos < r[j].Pos })
	return r
}

// Fields lists every field used, in source order.
func Fields(n Node) []FieldRef {
	var out []Ref
	Inspect(n, func(n Node) bool {
		if f, ok := n.(*Field); ok {
			out = append(out, Ref{f.Name, f.NamePos})
		}
		return true
	})
	return sortRefs(out)
}

// Functions lists every function called, in source order.
func Functions(n Node) []Ref {
	var out []Ref
	Inspect(n, func(n Node) bool {
		if c, ok := n.(*Call); ok {
			out = append(out, Ref{c.Name, c.NamePos})
		}
		return true
	})
	return sortRefs(out)
}

// Lists lists every named list used ($name, without the $), in source order.
func Lists(n Node) []Ref {
	var out []Ref
	Inspect(n, func(n Node) bool {
		if l, ok := n.(*ListRef); ok {
			out = append(out, Ref{l.Name, l.DollarPos})
		}
		return true
	})
	return sortRefs(out)
}

// Operators lists every operator used, comparisons and logical ones, in
// source order.
func Operators(n Node) []OpRef {
	var out []OpRef
	Inspect(n, func(n Node) bool {
		switch x := n.(type) {
		case *BinaryExpr:
			out = append(out, OpRef{x.Op, x.OpPos})
		case *NotExpr:
			out = append(out, OpRef{OpNot, x.NotPos})
		case *Comparison:
			out = append(out, OpRef{x.Op, x.OpPos})
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out
}

// Equal reports whether two trees have the same structure and values,
// ignoring positions and spelling (operator symbols, raw or quoted strings,
// hex or decimal integers, IPv6 zero compression).
func Equal(a, b Node) bool {
	a, b = unwrapExpr(a), unwrapExpr(b)
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.equal(b)
}

// unwrapExpr is the root of an *Expr, so that a parsed expression equals its
// tree; any other node is itself.
func unwrapExpr(n Node) Node {
	if e, ok := n.(*Expr); ok {
		return e.Root
	}
	return n
}

// equalNodes compares two lists of children pairwise.
func equalNodes(a, b []Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Each node type's equal method is Equal for that kind of node: o is
// non-nil, and the method decides what of the node is structure or value
// (compared) and what is position or spelling (ignored).

// An *Expr is only the wrapper Equal unwraps at the top; one nested inside a
// tree compares unequal to everything.
func (*Expr) equal(Node) bool { return false }

func (n *BinaryExpr) equal(o Node) bool {
	m, ok := o.(*BinaryExpr)
	return ok && n.Op == m.Op && Equal(n.X, m.X) && Equal(n.Y, m.Y)
}

func (n *NotExpr) equal(o Node) bool {
	m, ok := o.(*NotExpr)
	return ok && Equal(n.X, m.X)
}

func (n *Comparison) equal(o Node) bool {
	m, ok := o.(*Comparison)
	return ok && n.Op == m.Op && Equal(n.X, m.X) && Equal(n.Y, m.Y)
}

func (n *Field) equal(o Node) bool {
	m, ok := o.(*Field)
	return ok && n.Name == m.Name
}

func (n *Call) equal(o Node) bool {
	m, ok := o.(*Call)
	return ok && n.Name == m.Name && equalNodes(n.Args, m.Args)
}

func (n *IndexExpr) equal(o Node) bool {
	m, ok := o.(*IndexExpr)
	return ok && Equal(n.X, m.X) && Equal(n.Index, m.Index)
}

func (n *UnpackExpr) equal(o Node) bool {
	m, ok := o.(*UnpackExpr)
	return ok && Equal(n.X, m.X)
}

func (n *StringLit) equal(o Node) bool {
	m, ok := o.(*StringLit)
	return ok && n.Value == m.Value
}

func (n *IntLit) equal(o Node) bool {
	m, ok := o.(*IntLit)
	return ok && n.Value == m.Value
}

func (n *IPLit) equal(o Node) bool {
	m, ok := o.(*IPLit)
	return ok && n.Addr == m.Addr && n.Bits == m.Bits
}

func (n *BytesLit) equal(o Node) bool {
	m, ok := o.(*BytesLit)
	return ok && bytes.Equal(n.Value, m.Value)
}

func (n *BoolLit) equal(o Node) bool {
	m, ok := o.(*BoolLit)
	return ok && n.Value == m.Value
}

func (n *RangeLit) equal(o Node) bool {
	m, ok := o.(*RangeLit)
	return ok && Equal(n.Lo, m.Lo) && Equal(n.Hi, m.Hi)
}

func (n *SetLit) equal(o Node) bool {
	m, ok := o.(*SetLit)
	return ok && equalNodes(n.Elems, m.Elems)
}

func (n *ListRef) equal(o Node) bool {
	m, ok := o.(*ListRef)
	return ok && n.Name == m.Name
}

// Two bad nodes are equal whatever source they stand for.
func (*BadNode) equal(o Node) bool {
	_, ok := o.(*BadNode)
	return ok
}
