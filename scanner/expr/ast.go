package expr

import (
	"net/netip"
)

// Pos is a byte offset into the expression source.
type Pos int

// Node is any node of the syntax tree.
type Node interface {
	// Pos is the byte offset of the node's first character.
	Pos() Pos
	// End is the byte offset just past the node's last character.
	End() Pos
	node()
	// equal is Equal for the node's own type; o is not nil (see walk.go).
	equal(o Node) bool
}

// Op is an operator: a comparison, or a logical connective.
type Op uint8

// Operators. The comparison operators come first, then the logical ones.
const (
	OpInvalid Op = iota
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpContains
	OpMatches
	OpWildcard
	OpStrictWildcard
	OpIn
	OpBitwiseAnd
	OpNot
	OpAnd
	OpXor
	OpOr
)

var opWords = [...]string{
	OpInvalid: "invalid", OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le", OpGt: "gt", OpGe: "ge",
	OpContains: "contains", OpMatches: "matches", OpWildcard: "wildcard",
	OpStrictWildcard: "strict wildcard", OpIn: "in", OpBitwiseAnd: "bitwise_and",
	OpNot: "not", OpAnd: "and", OpXor: "xor", OpOr: "or",
}

var opSymbols = [...]string{
	OpEq: "==", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=",
	OpMatches: "~", OpBitwiseAnd: "&", OpNot: "!", OpAnd: "&&", OpXor: "^^", OpOr: "||",
}

// String is the operator's canonical English spelling ("eq", "strict wildcard", "and").
func (o Op) String() string {
	if int(o) < len(opWords) {
		return opWords[o]
	}
	return "invalid"
}

// Symbol is the operator's symbolic spelling ("==", "&&"), or "" when it has none.
func (o Op) Symbol() string {
	if int(o) < len(opSymbols) {
		return opSymbols[o]
	}
	return ""
}

// IsComparison reports whether o compares a value with a right-hand side.
func (o Op) IsComparison() bool { return o >= OpEq && o <= OpBitwiseAnd }

// IsLogical reports whether o is not, and, xor or or.
func (o Op) IsLogical() bool { return o >= OpNot && o <= OpOr }

// Expr is a parsed expression: the source and the root of its tree.
// It implements Node so that Walk, Fields and the other helpers take it directly.
type Expr struct {
	Src  string
	Root Node
	// Value is true when the expression was parsed by ParseValue.
	Value bool
}

// Pos is the root's position.
func (e *Expr) Pos() Pos { return e.Root.Pos() }

// End is the root's end.
func (e *Expr) End() Pos { return e.Root.End() }

// String prints the expression in canonical style.
func (e *Expr) String() string { return Print(e.Root) }

// BinaryExpr is X and Y, X xor Y or X or Y. Chains associate to the left.
type BinaryExpr struct {
	X     Node
	Op    Op // OpAnd, OpXor or OpOr
	OpPos Pos
	// OpText is the operator as written ("and" or "&&").
	OpText string
	Y      Node
}

// NotExpr is not X (or !X).
type NotExpr struct {
	NotPos Pos
	// Bang is true when written as "!".
	Bang bool
	X    Node
}

// Comparison is X op Y. A boolean used on its own (ssl, any(...)) is not a
// Comparison: it appears as the bare *Field, *Call or *IndexExpr.
type Comparison struct {
	X     Node
	Op    Op
	OpPos Pos
	// OpText is the operator as written ("eq", "==", "strict wildcard").
	OpText string
	// Y is a *StringLit, *IntLit, *IPLit, *BytesLit, *SetLit or *ListRef.
	Y Node
}

// Field is a field name such as http.request.uri.path.
type Field struct {
	NamePos Pos
	Name    string
}

// Call is a function call name(args...).
type Call struct {
	NamePos Pos
	Name    string
	Lparen  Pos
	Args    []Node
	Rparen  Pos
}

// IndexExpr is X["key"] (map) or X[0] (array).
type IndexExpr struct {
	X      Node
	Lbrack Pos
	// Index is a *StringLit (map key) or *IntLit (array index).
	Index  Node
	Rbrack Pos
}

// UnpackExpr is X[*]: every element of an array or map.
type UnpackExpr struct {
	X      Node
	Lbrack Pos
	Rbrack Pos
}

// StringLit is a quoted or raw string. Value holds the decoded bytes (which
// need not be valid UTF-8). For the right-hand side of matches, Value is the
// regular expression exactly as the regex engine receives it.
type StringLit struct {
	ValuePos Pos
	EndPos   Pos
	Value    string
	// Raw is true for r"..." / r#"..."#; Hashes counts the #.
	Raw    bool
	Hashes int
}

// IntLit is an integer.
type IntLit struct {
	ValuePos Pos
	EndPos   Pos
	Value    int64
	// Text is the spelling (0x1F, 017, -3).
	Text string
}

// IPLit is an IP address, or a CIDR when Bits >= 0.
type IPLit struct {
	ValuePos Pos
	EndPos   Pos
	Addr     netip.Addr
	// Bits is the prefix length of a CIDR, -1 for a plain address.
	Bits int
	// Text is the spelling as written.
	Text string
}

// IsCIDR reports whether the literal is a network rather than an address.
func (n *IPLit) IsCIDR() bool { return n.Bits >= 0 }

// Prefix is the literal as a prefix (an address is a full-length prefix).
func (n *IPLit) Prefix() netip.Prefix {
	if n.Bits >= 0 {
		return netip.PrefixFrom(n.Addr, n.Bits)
	}
	return netip.PrefixFrom(n.Addr, n.Addr.BitLen())
}

// BytesLit is an unquoted byte string such as 6F:72:67.
type BytesLit struct {
	ValuePos Pos
	EndPos   Pos
	Value    []byte
	Text     string
}

// BoolLit is true or false.
type BoolLit struct {
	ValuePos Pos
	Value    bool
}

// RangeLit is Lo..Hi inside a set: two *IntLit or two *IPLit (addresses).
type RangeLit struct {
	Lo, Hi Node
}

// SetLit is { a b c }.
type SetLit struct {
	Lbrace Pos
	Elems  []Node
	Rbrace Pos
}

// ListRef is a named list, $name or $cf.managed_name.
type ListRef struct {
	DollarPos Pos
	Name      string // without the $
}

// BadNode stands for a part of the source that did not parse.
type BadNode struct {
	From, To Pos
}

// Pos is the offset of the first character of the BinaryExpr.
func (n *BinaryExpr) Pos() Pos { return n.X.Pos() }

// End is the offset just past the BinaryExpr.
func (n *BinaryExpr) End() Pos { return n.Y.End() }

// Pos is the offset of the first character of the NotExpr.
func (n *NotExpr) Pos() Pos { return n.NotPos }

// End is the offset just past the NotExpr.
func (n *NotExpr) End() Pos { return n.X.End() }

// Pos is the offset of the first character of the Comparison.
func (n *Comparison) Pos() Pos { return n.X.Pos() }

// End is the offset just past the Comparison.
func (n *Comparison) End() Pos { return n.Y.End() }

// Pos is the offset of the first character of the Field.
func (n *Field) Pos() Pos { return n.NamePos }

// End is the offset just past the Field.
func (n *Field) End() Pos { return n.NamePos + Pos(len(n.Name)) }

// Pos is the offset of the first character of the Call.
func (n *Call) Pos() Pos { return n.NamePos }

// End is the offset just past the Call.
func (n *Call) End() Pos { return n.Rparen + 1 }

// Pos is the offset of the first character of the IndexExpr.
func (n *IndexExpr) Pos() Pos { return n.X.Pos() }

// End is the offset just past the IndexExpr.
func (n *IndexExpr) End() Pos { return n.Rbrack + 1 }

// Pos is the offset of the first character of the UnpackExpr.
func (n *UnpackExpr) Pos() Pos { return n.X.Pos() }

// End is the offset just past the UnpackExpr.
func (n *UnpackExpr) End() Pos { return n.Rbrack + 1 }

// Pos is the offset of the first character of the StringLit.
func (n *StringLit) Pos() Pos { return n.ValuePos }

// End is the offset just past the StringLit.
func (n *StringLit) End() Pos { return n.EndPos }

// Pos is the offset of the first character of the IntLit.
func (n *IntLit) Pos() Pos { return n.ValuePos }

// End is the offset just past the IntLit.
func (n *IntLit) End() Pos { return n.EndPos }

// Pos is the offset of the first character of the IPLit.
func (n *IPLit) Pos() Pos { return n.ValuePos }

// End is the offset just past the IPLit.
func (n *IPLit) End() Pos { return n.EndPos }

// Pos is the offset of the first character of the BytesLit.
func (n *BytesLit) Pos() Pos { return n.ValuePos }

// End is the offset just past the BytesLit.
func (n *BytesLit) End() Pos { return n.EndPos }

// Pos is the offset of the first character of the BoolLit.
func (n *BoolLit) Pos() Pos { return n.ValuePos }

// End is the offset just past the BoolLit.
func (n *BoolLit) End() Pos {
	if n.Value {
		return n.ValuePos + 4
	}
	return n.ValuePos + 5
}

// Pos is the offset of the first character of the RangeLit.
func (n *RangeLit) Pos() Pos { return n.Lo.Pos() }

// End is the offset just past the RangeLit.
func (n *RangeLit) End() Pos { return n.Hi.End() }

// Pos is the offset of the first character of the SetLit.
func (n *SetLit) Pos() Pos { return n.Lbrace }

// End is the offset just past the SetLit.
func (n *SetLit) End() Pos { return n.Rbrace + 1 }

// Pos is the offset of the first character of the ListRef.
func (n *ListRef) Pos() Pos { return n.DollarPos }

// End is the offset just past the ListRef.
func (n *ListRef) End() Pos { return n.DollarPos + 1 + Pos(len(n.Name)) }

// Pos is the offset of the first character of the BadNode.
func (n *BadNode) Pos() Pos { return n.From }

// End is the offset just past the BadNode.
func (n *BadNode) End() Pos { return n.To }

func (*Expr) node()       {}
func (*BinaryExpr) node() {}
func (*NotExpr) node()    {}
func (*Comparison) node() {}
func (*Field) node()      {}
func (*Call) node()       {}
func (*IndexExpr) node()  {}
func (*UnpackExpr) node() {}
func (*StringLit) node()  {}
func (*IntLit) node()     {}
func (*IPLit) node()      {}
func (*BytesLit) node()   {}
func (*BoolLit) node()    {}
func (*RangeLit) node()   {}
func (*SetLit) node()     {}
func (*ListRef) node()    {}
func (*BadNode) node()    {}
