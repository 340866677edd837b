package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLength is the longest expression the service accepts, in characters.
const MaxLength = 4096

// MaxDepth bounds nesting (parentheses, not, function calls) so that hostile
// input cannot exhaust the stack.
const MaxDepth = 128

// maxErrors stops a hopeless parse from reporting on every token.
const maxErrors = 10

// Parse parses a filter expression (a boolean condition).
//
// The returned *Expr is never nil. When err is non-nil it is an ErrorList;
// the tree is still returned for inspection but holds *BadNode where the
// source did not parse, unless the only error is the length limit.
func Parse(src string) (*Expr, error) {
	return parse(src, false)
}

// ParseValue parses a value expression, as used by transform rules:
// a field, a function call, a literal, or any filter expression.
func ParseValue(src string) (*Expr, error) {
	return parse(src, true)
}

func parse(src string, value bool) (*Expr, error) {
	p := &parser{src: src, lx: lexer{src: src}, value: value, lastErr: -1}
	p.next()
	var root Node
	if p.tok.kind == tEOF {
		p.errorf(p.tok.pos, "empty expression")
		root = &BadNode{From: 0, To: Pos(len(src))}
	} else {
		root = p.parseExpr()
		for p.tok.kind != tEOF && !p.bailed {
			if p.tok.kind == tIllegal {
				p.illegal()
			}
			p.errorf(p.tok.pos, "expected a logical operator (and, or, xor) or the end of the expression, found %s%s", describe(p.tok), hintAfterOperand(p.tok))
			p.syncLogical()
			if p.tok.kind != tEOF {
				// Parse what follows so its errors are reported too.
				p.next()
				p.parseExpr()
			}
		}
	}
	if n := utf8.RuneCountInString(src); n > MaxLength {
		at := 0
		for i := range src {
			if at == MaxLength {
				at = i
				break
			}
			at++
		}
		p.errs = append(p.errs, p.newError(Pos(at), fmt.Sprintf("expression is %d characters long; the limit is %d", n, MaxLength)))
	}
	p.errs.sort()
	return &Expr{Src: src, Root: root, Value: value}, p.errs.Err()
}

type parser struct {
	src       string
	lx        lexer
	tok       token
	errs      ErrorList
	lastErr   Pos
	depth     int
	callDepth int
	value     bool
	bailed    bool
}

func (p *parser) next() { p.tok = p.lx.scan(0) }

func (p *parser) nextIn(mode int) { p.tok = p.lx.scan(mode) }

func (p *parser) newError(pos Pos, msg string) *Error {
	line, col := LineCol(p.src, int(pos))
	return &Error{Pos: pos, Line: line, Col: col, Msg: msg}
}

// errorf records an error unless one was already recorded at or after pos:
// errors that follow from an earlier one add nothing.
func (p *parser) errorf(pos Pos, format string, args ...any) {
	if p.bailed || pos <= p.lastErr {
		return
	}
	p.lastErr = pos
	p.errs = append(p.errs, p.newError(pos, fmt.Sprintf(format, args...)))
	if len(p.errs) >= maxErrors {
		p.bail()
	}
}

// bail stops parsing: the rest of the input is skipped.
func (p *parser) bail() {
	p.bailed = true
	p.lx.off = len(p.src)
	p.tok = token{kind: tEOF, pos: Pos(len(p.src)), end: Pos(len(p.src))}
}

// unexpected reports the current token: the lexer's own message for a
// token it rejected, else the formatted one.
func (p *parser) unexpected(format string, args ...any) {
	if p.tok.kind == tIllegal {
		p.illegal()
		return
	}
	p.errorf(p.tok.pos, format, args...)
}

// illegal reports a token the lexer rejected.
func (p *parser) illegal() {
	p.errorf(p.tok.errPos, "%s", p.tok.msg)
}

// enter and leave bound nesting depth.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.errorf(p.tok.pos, "too deeply nested: more than %d levels of parentheses, not or function calls", MaxDepth)
		p.bail()
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// missingClose is where a node whose closing bracket is missing ends: just
// before the current token, so that End stays inside the source.
func (p *parser) missingClose(open Pos) Pos {
	if c := p.tok.pos - 1; c > open {
		return c
	}
	return open
}

// syncLogical skips to the next logical operator or the end.
func (p *parser) syncLogical() {
	for p.tok.kind != tEOF {
		if _, ok := logicalOp(p.tok); ok {
			return
		}
		p.next()
	}
}

func (p *parser) isWord(w string) bool { return p.tok.kind == tIdent && p.tok.text == w }

var keywords = map[string]bool{
	"and": true, "or": true, "xor": true, "not": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"contains": true, "matches": true, "wildcard": true, "strict": true, "in": true,
	"bitwise_and": true, "true": true, "false": true,
}

func logicalOp(t token) (Op, bool) {
	switch t.kind {
	case tAndAnd:
		return OpAnd, true
	case tXorXor:
		return OpXor, true
	case tOrOr:
		return OpOr, true
	case tIdent:
		switch t.text {
		case "and":
			return OpAnd, true
		case "xor":
			return OpXor, true
		case "or":
			return OpOr, true
		}
	}
	return OpInvalid, false
}

func (p *parser) parseExpr() Node { return p.parseBinary(OpOr) }

// parseBinary parses a left-associative chain of op; or > xor > and.
func (p *parser) parseBinary(op Op) Node {
	x := p.parseTighter(op)
	for {
		o, ok := logicalOp(p.tok)
		if !ok || o != op {
			return x
		}
		t := p.tok
		p.next()
		y := p.parseTighter(op)
		x = &BinaryExpr{X: x, Op: op, OpPos: t.pos, OpText: t.text, Y: y}
	}
}

// parseTighter parses an operand of op: the next tighter level.
func (p *parser) parseTighter(op Op) Node {
	switch op {
	case OpOr:
		return p.parseBinary(OpXor)
	case OpXor:
		return p.parseBinary(OpAnd)
	}
	return p.parseNot()
}

func (p *parser) parseNot() Node {
	if p.isWord("not") || p.tok.kind == tBang {
		t := p.tok
		if !p.enter() {
			return &BadNode{From: t.pos, To: t.end}
		}
		defer p.leave()
		p.next()
		x := p.parseNot()
		return &NotExpr{NotPos: t.pos, Bang: t.kind == tBang, X: x}
	}
	return p.parseComparison()
}

func compareOp(t token) (Op, bool) {
	switch t.kind {
	case tEqEq:
		return OpEq, true
	case tNe:
		return OpNe, true
	case tLt:
		return OpLt, true
	case tLe:
		return OpLe, true
	case tGt:
		return OpGt, true
	case tGe:
		return OpGe, true
	case tTilde:
		return OpMatches, true
	case tAmp:
		return OpBitwiseAnd, true
	case tIdent:
		switch t.text {
		case "eq":
			return OpEq, true
		case "ne":
			return OpNe, true
		case "lt":
			return OpLt, true
		case "le":
			return OpLe, true
		case "gt":
			return OpGt, true
		case "ge":
			return OpGe, true
		case "contains":
			return OpContains, true
		case "matches":
			return OpMatches, true
		case "wildcard":
			return OpWildcard, true
		case "strict":
			return OpStrictWildcard, true
		case "in":
			return OpIn, true
		case "bitwise_and":
			return OpBitwiseAnd, true
		}
	}
	return OpInvalid, false
}

func (p *parser) parseComparison() Node {
	switch {
	case p.tok.kind == tLParen:
		lp := p.tok
		if !p.enter() {
			return &BadNode{From: lp.pos, To: lp.end}
		}
		defer p.leave()
		p.next()
		x := p.parseExpr()
		if p.tok.kind != tRParen {
			p.unexpected("expected \")\" to close the \"(\" at %s, found %s", p.posString(lp.pos), describe(p.tok))
			return x
		}
		p.next()
		if _, ok := compareOp(p.tok); ok {
			p.errorf(p.tok.pos, "a parenthesized expression cannot be compared: put the comparison inside the parentheses")
		}
		return x
	case p.isWord("true"), p.isWord("false"):
		t := p.tok
		p.next()
		if _, ok := compareOp(p.tok); ok {
			p.errorf(p.tok.pos, "%s is a boolean literal and cannot be compared", t.text)
		}
		return &BoolLit{ValuePos: t.pos, Value: t.text == "true"}
	}
	x := p.parseOperand()
	switch x.(type) {
	case *Field, *Call, *IndexExpr, *UnpackExpr, *BadNode:
	default:
		if _, ok := compareOp(p.tok); ok {
			p.errorf(x.Pos(), "a comparison must start with a field or a function call, found %s", describeNode(x))
		} else if !p.value && p.callDepth == 0 {
			p.errorf(x.Pos(), "expected a field, a function call or a parenthesized expression, found %s", describeNode(x))
		}
		return x
	}
	op, ok := compareOp(p.tok)
	if !ok {
		if p.tok.kind == tIdent && !keywords[p.tok.text] {
			p.errorf(p.tok.pos, "expected a comparison operator or a logical operator, found %s%s", describe(p.tok), hintAfterOperand(p.tok))
		}
		return x
	}
	return p.parseRHS(x, op)
}

func (p *parser) parseRHS(x Node, op Op) Node {
	opTok := p.tok
	opText := opTok.text
	if op == OpStrictWildcard {
		p.next()
		if !p.isWord("wildcard") {
			p.unexpected("expected \"wildcard\" after \"strict\", found %s", describe(p.tok))
			return &Comparison{X: x, Op: op, OpPos: opTok.pos, OpText: opText, Y: &BadNode{From: p.tok.pos, To: p.tok.pos}}
		}
		opText = p.src[opTok.pos:p.tok.end]
	}
	mode := modeValue
	if op == OpMatches {
		mode |= modeRegex
	}
	p.nextIn(mode)
	cmp := &Comparison{X: x, Op: op, OpPos: opTok.pos, OpText: opText}
	t := p.tok
	switch op {
	case OpIn:
		switch t.kind {
		case tLBrace:
			cmp.Y = p.parseSet()
		case tList:
			p.next()
			cmp.Y = &ListRef{DollarPos: t.pos, Name: t.val}
		default:
			cmp.Y = p.badRHS("expected a set {...} or a list $name after \"in\", found %s", describe(t))
		}
		return cmp
	case OpMatches, OpWildcard, OpStrictWildcard:
		if t.kind == tString || t.kind == tRaw {
			p.next()
			cmp.Y = stringLit(t)
			return cmp
		}
		what := "a wildcard pattern string"
		if op == OpMatches {
			what = "a regular expression string"
		}
		cmp.Y = p.badRHS("expected %s after %q, found %s", what, opText, describe(t))
		return cmp
	}
	y := p.parseLiteral("after \"" + opText + "\"")
	cmp.Y = y
	switch y := y.(type) {
	case *BadNode:
	case *RangeLit:
		p.errorf(y.Pos(), "a range is only allowed inside a set: write %s in {%s}", describeNode(x), p.src[y.Pos():y.End()])
	case *IPLit:
		if y.IsCIDR() && op != OpIn {
			p.errorf(y.Pos(), "a CIDR is only allowed inside a set: write in {%s}", y.Text)
		}
	}
	if op == OpContains {
		switch y.(type) {
		case *StringLit, *BytesLit, *BadNode:
		default:
			p.errorf(y.Pos(), "\"contains\" takes a string, found %s", describeNode(y))
		}
	}
	if op == OpBitwiseAnd {
		switch y.(type) {
		case *IntLit, *BadNode:
		default:
			p.errorf(y.Pos(), "%q takes an integer, found %s", opText, describeNode(y))
		}
	}
	return cmp
}

// badRHS reports a bad right-hand side and skips the token unless it ends
// something or starts a logical operator.
func (p *parser) badRHS(format string, args ...any) Node {
	t := p.tok
	if t.kind == tIllegal {
		p.illegal()
	} else {
		p.errorf(t.pos, format, args...)
	}
	p.skipBad()
	return &BadNode{From: t.pos, To: t.end}
}

func (p *parser) skipBad() {
	switch p.tok.kind {
	case tEOF, tRParen, tRBrace, tComma:
		return
	}
	if _, ok := logicalOp(p.tok); ok {
		return
	}
	p.next()
}

// parseLiteral parses one string or unquoted value (the current token was
// scanned in value mode).
func (p *parser) parseLiteral(where string) Node {
	t := p.tok
	switch t.kind {
	case tString, tRaw:
		p.next()
		return stringLit(t)
	case tValue:
		n, err := classifyRun(t.text, t.pos)
		if err != nil {
			p.errorf(err.pos, "%s", err.msg)
			p.next()
			return &BadNode{From: t.pos, To: t.end}
		}
		p.next()
		return n
	case tIllegal:
		p.illegal()
		p.skipBad()
		return &BadNode{From: t.pos, To: t.end}
	case tIdent:
		switch t.text {
		case "true", "false":
			return p.badRHS("%s is a boolean literal and cannot be compared", t.text)
		case "starts_with", "ends_with":
			return p.badRHS("expected a value %s, found %s: %s is a function", where, describe(t), t.text)
		}
		return p.badRHS("expected a value (string, number, IP address) %s, found %s: a field cannot be compared with another field", where, describe(t))
	}
	return p.badRHS("expected a value (string, number, IP address) %s, found %s", where, describe(t))
}

func stringLit(t token) *StringLit {
	return &StringLit{ValuePos: t.pos, EndPos: t.end, Value: t.val, Raw: t.kind == tRaw, Hashes: t.hashes}
}

func (p *parser) parseSet() Node {
	set := &SetLit{Lbrace: p.tok.pos}
	if !p.enter() {
		return &BadNode{From: set.Lbrace, To: set.Lbrace + 1}
	}
	defer p.leave()
	p.nextIn(modeValue)
	kinds := kindAny
	for {
		switch p.tok.kind {
		case tRBrace:
			set.Rbrace = p.tok.pos
			p.next()
			return set
		case tEOF:
			p.errorf(p.tok.pos, "expected \"}\" to close the set opened at %s, found end of expression", p.posString(set.Lbrace))
			set.Rbrace = p.missingClose(set.Lbrace)
			return set
		case tComma:
			p.errorf(p.tok.pos, "expected a set element, found \",\": set elements are separated by spaces, not commas")
			p.nextIn(modeValue)
			continue
		case tString, tRaw, tValue:
			e := p.parseSetElem()
			if _, bad := e.(*BadNode); !bad {
				k := elemKinds(e)
				if kinds&k == 0 {
					p.errorf(e.Pos(), "set element %s does not match the set's other elements (%s)", describeNode(e), kindNames(kinds))
				} else {
					kinds &= k
				}
			}
			set.Elems = append(set.Elems, e)
		case tIllegal:
			p.illegal()
			set.Elems = append(set.Elems, &BadNode{From: p.tok.pos, To: p.tok.end})
			p.nextIn(modeValue)
		default:
			if _, ok := logicalOp(p.tok); ok || p.tok.kind == tRParen {
				p.errorf(p.tok.pos, "expected \"}\" to close the set opened at %s, found %s", p.posString(set.Lbrace), describe(p.tok))
				set.Rbrace = p.missingClose(set.Lbrace)
				return set
			}
			p.errorf(p.tok.pos, "expected a set element, found %s", describe(p.tok))
			set.Elems = append(set.Elems, &BadNode{From: p.tok.pos, To: p.tok.end})
			p.nextIn(modeValue)
		}
	}
}

func (p *parser) parseSetElem() Node {
	t := p.tok
	var n Node
	switch t.kind {
	case tString, tRaw:
		n = stringLit(t)
	default:
		var err *valueError
		n, err = classifyRun(t.text, t.pos)
		if err != nil {
			p.errorf(err.pos, "%s", err.msg)
			n = &BadNode{From: t.pos, To: t.end}
		}
	}
	p.nextIn(modeValue)
	return n
}

// Element kinds, as a bit set: a set's elements must share one.
const (
	kindString = 1 << iota // strings and byte strings
	kindInt
	kindIP
	kindAny = kindString | kindInt | kindIP
)

func elemKinds(n Node) int {
	switch n := n.(type) {
	case *StringLit, *BytesLit:
		return kindString
	case *IntLit:
		return kindInt
	case *IPLit:
		if _, ok := parseByteString(n.Text); ok {
			return kindIP | kindString
		}
		return kindIP
	case *RangeLit:
		return elemKinds(n.Lo) &^ kindString
	}
	return kindAny
}

func kindNames(k int) string {
	var names []string
	if k&kindString != 0 {
		names = append(names, "strings")
	}
	if k&kindInt != 0 {
		names = append(names, "integers")
	}
	if k&kindIP != 0 {
		names = append(names, "IP addresses")
	}
	return strings.Join(names, " or ")
}

// parseOperand parses a field, a call, a literal, with any index suffixes.
func (p *parser) parseOperand() Node {
	t := p.tok
	switch t.kind {
	case tIdent:
		if keywords[t.text] {
			p.errorf(t.pos, "expected a field, a function call or a parenthesized expression, found %s", describe(t))
			p.skipBad()
			return &BadNode{From: t.pos, To: t.end}
		}
		p.next()
		var x Node
		if p.tok.kind == tLParen {
			x = p.parseCall(t)
		} else {
			x = &Field{NamePos: t.pos, Name: t.text}
		}
		return p.parseSuffixes(x)
	case tString, tRaw:
		p.next()
		return stringLit(t)
	case tValue:
		n, err := classifyRun(t.text, t.pos)
		p.next()
		if err != nil {
			p.errorf(err.pos, "%s", err.msg)
			return &BadNode{From: t.pos, To: t.end}
		}
		if _, ok := n.(*RangeLit); ok {
			p.errorf(t.pos, "a range is only allowed inside a set")
		}
		if ip, ok := n.(*IPLit); ok && ip.IsCIDR() {
			p.errorf(t.pos, "a CIDR is only allowed inside a set")
		}
		return n
	case tList:
		p.next()
		p.errorf(t.pos, "a list can only follow \"in\": write <field> in %s", t.text)
		return &ListRef{DollarPos: t.pos, Name: t.val}
	case tLBrace:
		p.errorf(t.pos, "a set can only follow \"in\"")
		p.skipBalanced(tLBrace, tRBrace)
		return &BadNode{From: t.pos, To: p.tok.pos}
	case tIllegal:
		p.illegal()
		p.skipBad()
		return &BadNode{From: t.pos, To: t.end}
	}
	p.errorf(t.pos, "expected a field, a function call or a parenthesized expression, found %s", describe(t))
	p.skipBad()
	return &BadNode{From: t.pos, To: t.end}
}

// skipBalanced skips from an opening token to just past its closing one.
func (p *parser) skipBalanced(open, closing tokKind) {
	depth := 0
	for p.tok.kind != tEOF {
		switch p.tok.kind {
		case open:
			depth++
		case closing:
			depth--
			if depth == 0 {
				p.next()
				return
			}
		}
		p.next()
	}
}

func (p *parser) parseCall(name token) Node {
	call := &Call{NamePos: name.pos, Name: name.text, Lparen: p.tok.pos}
	if !p.enter() {
		return &BadNode{From: name.pos, To: p.tok.end}
	}
	defer p.leave()
	p.callDepth++
	defer func() { p.callDepth-- }()
	p.next()
	if p.tok.kind == tRParen {
		call.Rparen = p.tok.pos
		p.next()
		return call
	}
	for {
		call.Args = append(call.Args, p.parseExpr())
		switch p.tok.kind {
		case tComma:
			p.next()
			continue
		case tRParen:
			call.Rparen = p.tok.pos
			p.next()
			return call
		}
		p.unexpected("expected \",\" or \")\" in the arguments of %s(...), found %s", name.text, describe(p.tok))
		call.Rparen = p.missingClose(call.Lparen)
		return call
	}
}

func (p *parser) parseSuffixes(x Node) Node {
	for p.tok.kind == tLBrack {
		lb := p.tok
		p.next()
		t := p.tok
		var n Node
		switch t.kind {
		case tStar:
			if p.callDepth == 0 {
				p.errorf(t.pos, "[*] is only allowed inside a function argument, such as any(%s[*] ...)", p.src[x.Pos():x.End()])
			}
			p.next()
			n = &UnpackExpr{X: x, Lbrack: lb.pos}
		case tString, tRaw:
			p.next()
			n = &IndexExpr{X: x, Lbrack: lb.pos, Index: stringLit(t)}
		case tValue:
			p.next()
			v, err := classifyRun(t.text, t.pos)
			idx, isInt := v.(*IntLit)
			if err != nil || !isInt || idx.Value < 0 {
				p.errorf(t.pos, "an index is a non-negative integer, a \"key\" string or *, found %q", t.text)
				n = &IndexExpr{X: x, Lbrack: lb.pos, Index: &BadNode{From: t.pos, To: t.end}}
			} else {
				n = &IndexExpr{X: x, Lbrack: lb.pos, Index: idx}
			}
		default:
			if t.kind == tIllegal {
				p.illegal()
			} else {
				p.errorf(t.pos, "an index is a non-negative integer, a \"key\" string or *, found %s", describe(t))
			}
			if t.kind != tRBrack {
				p.skipBad()
			}
			n = &IndexExpr{X: x, Lbrack: lb.pos, Index: &BadNode{From: t.pos, To: t.end}}
		}
		if p.tok.kind != tRBrack {
			p.unexpected("expected \"]\", found %s", describe(p.tok))
			setRbrack(n, p.missingClose(lb.pos))
			return n
		}
		setRbrack(n, p.tok.pos)
		p.next()
		x = n
	}
	return x
}

func setRbrack(n Node, pos Pos) {
	switch n := n.(type) {
	case *IndexExpr:
		n.Rbrack = pos
	case *UnpackExpr:
		n.Rbrack = pos
	}
}

func (p *parser) posString(pos Pos) string {
	line, col := LineCol(p.src, int(pos))
	return fmt.Sprintf("%d:%d", line, col)
}

// describe names a token for an error message.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tString, tRaw:
		if utf8.RuneCountInString(t.text) > 40 {
			return "string " + string([]rune(t.text)[:37]) + "..."
		}
		return "string " + t.text
	case tIdent:
		if keywords[t.text] {
			return fmt.Sprintf("%q", t.text)
		}
		return "name " + truncate(t.text)
	case tList:
		return "list " + t.text
	}
	return truncate(t.text)
}

func truncate(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		return fmt.Sprintf("%q", string(r[:37])+"...")
	}
	return fmt.Sprintf("%q", s)
}

func describeNode(n Node) string {
	switch n := n.(type) {
	case *StringLit:
		return "string " + truncate(n.Value)
	case *IntLit:
		return "integer " + n.Text
	case *IPLit:
		return "IP " + n.Text
	case *BytesLit:
		return "byte string " + n.Text
	case *RangeLit:
		return "range"
	case *BoolLit:
		return fmt.Sprint(n.Value)
	case *ListRef:
		return "list $" + n.Name
	case *Field:
		return n.Name
	case *Call:
		return n.Name + "(...)"
	}
	return "expression"
}

// hintAfterOperand explains common mistakes where an operator belongs.
func hintAfterOperand(t token) string {
	if t.kind != tIdent {
		return ""
	}
	switch t.text {
	case "starts_with", "ends_with":
		return fmt.Sprintf(" (%s is a function, not an operator: write %s(field, \"value\"))", t.text, t.text)
	}
	if lower := strings.ToLower(t.text); lower != t.text && keywords[lower] {
		return fmt.Sprintf(" (operators are lowercase: write %s)", lower)
	}
	return ""
}
