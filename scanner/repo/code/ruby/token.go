package ruby

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// token reads the token starting with c at l.i.
func (l *lexer) token(c byte) {
	next := l.peek(1)
	switch {
	case lexkit.IsIdentStart(c):
		l.name()
	case c >= '0' && c <= '9':
		l.number()
	case c == '@' || c == '$':
		l.variable()
	case c == ':':
		l.colon(next)
	case c == '\'' || c == '"' || c == '`':
		l.quoted(c, false)
	case !l.literal(c, next):
		l.operator()
	}
}

// colon reads "::", a quoted symbol, a symbol, or a ':' of a conditional expression.
func (l *lexer) colon(next byte) {
	switch {
	case next == ':':
		l.op(opScope, 2)
	case next == '"' || next == '\'':
		l.i++
		l.quoted(next, true)
	case lexkit.IsIdentStart(next) || next == '@' || next == '$':
		l.symbol()
	default:
		l.operator()
	}
}

// literal reads what %, /, << and ? open when they open a literal (%w[], a regular
// expression, a heredoc, a character), and reports whether they did.
func (l *lexer) literal(c, next byte) bool {
	switch {
	case c == '%' && (!l.operand() || l.command()):
		return l.percent()
	case c == '/' && (!l.operand() || l.command()):
		l.regexp()
		return true
	case c == '<' && next == '<':
		return l.heredoc()
	case c == '?' && !l.operand() && next > ' ' && (l.i+2 >= len(l.src) || !lexkit.IsIdent(l.src[l.i+2])):
		l.emit(token{kind: tLit, s: int32(l.i), a: int32(l.i), b: int32(l.i + 2)})
		l.i += 2
		return true
	}
	return false
}

// name reads an identifier, a constant or a label (name:).
func (l *lexer) name() {
	a := l.i
	j := l.i
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	if j < len(l.src) && (l.src[j] == '?' || l.src[j] == '!') && (j+1 >= len(l.src) ||
		l.src[j+1] != '=' && (l.src[j] != '?' || !lexkit.IsIdent(l.src[j+1]))) {
		j++ // empty?, save!
	}
	k := kind(tIdent)
	if c := l.src[a]; c >= 'A' && c <= 'Z' {
		k = tConst
	}
	if j < len(l.src) && l.src[j] == ':' && (j+1 >= len(l.src) || l.src[j+1] != ':') && !l.ternary() {
		l.emit(token{kind: tLabel, s: int32(a), a: int32(a), b: int32(j)})
		l.i = j + 1
		return
	}
	l.emit(token{kind: k, s: int32(a), a: int32(a), b: int32(j)})
	l.i = j
}

// ternary reports whether a '?' of a conditional expression is open on this line (so that
// "a ? b:c" is no label).
func (l *lexer) ternary() bool {
	for k := len(l.toks) - 1; k >= 0 && len(l.toks)-k < 16; k-- {
		switch t := &l.toks[k]; {
		case t.kind == tNL:
			return false
		case t.kind == tOp && t.op == '?':
			return true
		}
	}
	return false
}

func (l *lexer) number() {
	j := l.i
	for j < len(l.src) && (lexkit.IsIdent(l.src[j]) || l.src[j] == '.' && j+1 < len(l.src) && l.src[j+1] >= '0' && l.src[j+1] <= '9') {
		j++
	}
	l.emit(token{kind: tNum, s: int32(l.i), a: int32(l.i), b: int32(j)})
	l.i = j
}

// variable reads @x, @@x, $x and the special globals ($1, $~).
func (l *lexer) variable() {
	s := l.i
	j := l.i + 1
	if j < len(l.src) && l.src[j] == '@' {
		j++
	}
	a := j
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	if j == a && l.src[s] == '$' && j < len(l.src) {
		j++ // $~, $!
	}
	if j == a {
		l.operator()
		return
	}
	l.emit(token{kind: tIVar, s: int32(s), a: int32(a), b: int32(j)})
	l.i = j
}

// symbol reads :name, :@x, :name=, :name?.
func (l *lexer) symbol() {
	s := l.i
	j := l.i + 1
	for j < len(l.src) && (l.src[j] == '@' || l.src[j] == '$') {
		j++
	}
	a := j
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	if j < len(l.src) && (l.src[j] == '?' || l.src[j] == '!' || l.src[j] == '=') && (j+1 >= len(l.src) || l.src[j+1] != '=' && l.src[j+1] != '>') {
		j++
	}
	l.emit(token{kind: tSym, s: int32(s), a: int32(a), b: int32(j)})
	l.i = j
}

func (l *lexer) op(op byte, n int) {
	i := len(l.toks)
	l.emit(token{kind: tOp, op: op, s: int32(l.i), a: int32(l.i), b: int32(l.i + n)})
	l.i += n
	switch op {
	case '(', '[', '{':
		if op == '(' {
			l.parens++
		}
		l.nest.Open(i, op)
	case ')', ']', '}':
		if m := l.nest.Close(lexkit.Opener(op)); m >= 0 {
			l.toks[i].match, l.toks[m].match = int32(m), int32(i)
		}
	}
}

// operator reads the operator at l.i.
func (l *lexer) operator() {
	rest := l.src[l.i:]
	c := rest[0]
	if len(rest) >= 3 {
		switch string(rest[:3]) {
		case "||=", "&&=", "<<=", ">>=", "**=":
			l.op(opAssign, 3)
			return
		case "===", "<=>", "...", "!~=":
			l.op(opOther, 3)
			return
		}
	}
	if len(rest) >= 2 && c < 0x80 && rest[1] < 0x80 {
		if op := pairs[c][rest[1]]; op != 0 {
			l.op(op, 2)
			return
		}
	}
	l.op(c, 1)
}

// pairs holds the code of each two-byte operator.
var pairs = func() (t [0x80][0x80]byte) {
	t['&']['.'], t['=']['>'], t['<']['<'], t['-']['>'] = opSafe, opPair, opShl, opLambda
	for _, op := range []string{"+=", "-=", "*=", "/=", "%=", "|=", "&=", "^="} {
		t[op[0]][op[1]] = opAssign
	}
	for _, op := range []string{"==", "!=", "=~", "!~", "<=", ">=", "&&", "||", "**", ">>", ".."} {
		t[op[0]][op[1]] = opOther
	}
	return t
}()
