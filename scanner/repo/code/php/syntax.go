package php

import "strings"

// keyword reports whether b is a name that never starts an operand or names a call.
func keyword(b []byte) bool {
	if len(b) < 2 || len(b) > 12 || !keywordStart[b[0]] {
		return false
	}
	switch string(b) {
	case "abstract", "and", "array", "as", "break", "case", "catch", "class", "clone", "const",
		"continue", "declare", "default", "die", "do", "echo", "else", "elseif", "empty", "enum",
		"eval", "exit", "extends", "final", "finally", "fn", "for", "foreach", "function", "global",
		"goto", "if", "implements", "include", "include_once", "instanceof", "insteadof", "interface",
		"isset", "list", "match", "namespace", "new", "or", "print", "private", "protected", "public",
		"readonly", "require", "require_once", "return", "switch", "throw", "trait", "try", "unset",
		"use", "var", "while", "xor", "yield", "true", "false", "null":
		return true
	}
	return false
}

// keywordStart holds the first letters of keywords.
var keywordStart = func() (t [256]bool) {
	for _, c := range "abcdefgilmnoprstuvwxy" {
		t[c] = true
	}
	return t
}()

// name handles a name token: the statements it starts, a named argument, an operand.
func (p *parser) name(i int) {
	t := &p.toks[i]
	switch string(p.src[t.a:t.b]) {
	case "function":
		p.fnBody = true
		j := i + 1
		if p.is(j, '&') {
			j++
		}
		p.decl = ""
		if j < len(p.toks) && p.toks[j].kind == tName && p.is(j+1, '(') {
			p.decl = string(p.src[p.toks[j].a:p.toks[j].b]) // recorded when its body opens
		}
		return
	case "namespace":
		if i+1 < len(p.toks) && p.toks[i+1].kind == tName && !p.IsMember(i-1) {
			p.out.Import(p.Text(i + 1))
		}
		return
	case "use":
		p.use(i)
		return
	case "require", "require_once", "include", "include_once":
		p.require(i)
		return
	}
	if p.is(i+1, ':') && (p.is(i-1, '(') || p.is(i-1, ',')) {
		if f := p.fr.Top(); f.Own {
			f.Key = p.Text(i)
			p.out.AddKey(f.Call, f.Key, int(t.a), 0)
		}
		return
	}
	if p.operandStart(i) && p.concatAfter(i) {
		p.value(i)
	}
}

// use reads "use A\B;", "use A\B as C, D;", "use function A\b;", "use A\{B, C as D};".
func (p *parser) use(i int) {
	j := i + 1
	if p.word(j, "function") || p.word(j, "const") {
		j++
	}
	for j < len(p.toks) && p.toks[j].kind == tName {
		prefix := p.Text(j)
		j++
		if strings.HasSuffix(prefix, "\\") && p.is(j, '{') {
			for j++; j < len(p.toks) && !p.is(j, '}') && !p.is(j, ';'); j++ {
				if p.toks[j].kind == tName && !p.word(j-1, "as") && !p.word(j, "as") {
					p.out.Import(prefix + p.Text(j))
				}
			}
			j++
		} else {
			p.out.Import(prefix)
		}
		if p.word(j, "as") {
			j += 2
		}
		if !p.is(j, ',') {
			return
		}
		j++
	}
}

// require reads require/include and their _once forms: the literal text of the path, which
// may follow one unknown prefix (__DIR__ . '/lib.php' is "/lib.php"); a path with an unknown
// part after its literal start is left out.
func (p *parser) require(i int) {
	j := i + 1
	if p.is(j, '(') {
		j++
	}
	var b strings.Builder
	for _, s := range p.chain(j) {
		t := &p.toks[s.a]
		if s.b-s.a != 1 || t.kind != tStr {
			if b.Len() > 0 {
				return
			}
			continue
		}
		for _, part := range p.parts[t.p0:t.p1] {
			if part.Hole {
				return
			}
			b.WriteString(part.Literal(p.src))
		}
	}
	p.out.Import(b.String())
}

// op handles an operator token.
func (p *parser) op(i int) {
	t := &p.toks[i]
	switch t.op {
	case '(':
		p.open(i)
	case '[':
		if p.indexes(i - 1) {
			p.fr.PushBlock('[', i)
		} else {
			p.fr.PushList('[', i)
		}
	case '{':
		f := p.fr.PushBlock('{', i)
		if p.fnBody {
			f.Scope, p.fnBody = true, false
			p.vars.Push()
			p.out.Decl(p.decl)
			p.decl = ""
		}
	case ')', ']', '}':
		p.close(i)
	case ',':
		f := p.fr.Top()
		if f.Own {
			p.argIdent(f, i)
			f.Arg++
		}
		f.ArgStart, f.Key = i+1, f.ItemKey
	case opPair:
		p.arrow(i)
	case '=':
		if i > 0 && p.toks[i-1].kind == tVar && !p.IsMember(i-2) {
			p.assign, p.assignTok = p.Text(i-1), i+1
		}
	case ';':
		p.fnBody, p.decl = false, ""
		p.fr.Top().Key = p.fr.Top().ItemKey
	}
}

// indexes reports whether a '[' after token i indexes it (rather than opening an array).
func (p *parser) indexes(i int) bool {
	if i < 0 {
		return false
	}
	switch t := &p.toks[i]; t.kind {
	case tVar, tStr:
		return true
	case tName:
		return !keyword(p.src[t.a:t.b])
	case tOp:
		return t.op == ')' || t.op == ']' || t.op == '}'
	}
	return false
}

// arrow records the key before "=>" in an array literal.
func (p *parser) arrow(i int) {
	f := p.fr.Top()
	if i-f.ArgStart != 1 {
		return
	}
	k := f.ArgStart
	t := &p.toks[k]
	name := ""
	switch t.kind {
	case tStr:
		if t.p1-t.p0 == 1 && !p.parts[t.p0].Hole {
			name = p.parts[t.p0].Literal(p.src)
		}
	case tName:
		name = p.Text(k)
	}
	f.Key = name
	if f.Call >= 0 && !f.Direct {
		p.out.AddKey(f.Call, name, int(t.a), f.Depth)
	}
}
