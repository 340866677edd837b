package elixir

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// ident handles an identifier: keywords, definitions, imports, and names that start a
// concatenation or call a function without parentheses.
func (p *parser) ident(i int) {
	t := &p.toks[i]
	if keyword(p.src[t.a:t.b]) {
		p.keyword(i)
		return
	}
	if p.operandStart(i) && p.concatAfter(i) {
		p.value(i)
	}
	switch {
	case p.is(i+1, '('):
	case p.command(i):
		p.call(i, frameCall, i)
	case !p.is(i+1, '.') && p.is(lexkit.ChainStart(p, i)-1, opPipe):
		callee, _ := p.callee(i)
		c := p.out.AddCall(callee, false, int(t.s)) // x |> Foo.bar
		p.out.EndCall(c, int(t.b))
	}
}

// keyword handles a keyword.
func (p *parser) keyword(i int) {
	switch string(p.src[p.toks[i].a:p.toks[i].b]) {
	case "do":
		p.endCommands(i)
		f := p.fr.PushBlock(frameBlock, i)
		if p.inDef {
			f.Scope, p.inDef = true, false
			p.vars.Push()
		}
	case "fn":
		p.fr.PushBlock(frameBlock, i)
	case "end":
		p.end(i)
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		if j := i + 1; j < len(p.toks) && p.toks[j].kind == tIdent && !p.word(j, "unquote") {
			p.out.Decl(p.Text(j))
		}
		p.inDef = true
	case "defmodule", "import", "require":
		p.path(i + 1)
	case "alias":
		p.alias(i + 1)
	case "use":
		j := p.path(i + 1)
		if j > i+1 {
			callee := []string{"use"}
			for k := i + 1; k < j; k++ {
				if p.toks[k].kind == tAlias {
					callee = append(callee, p.Text(k))
				}
			}
			c := p.out.AddCall(callee, false, int(p.toks[j-1].s))
			p.fr.PushCall(frameCall, c, i)
		}
	}
}

// path records the alias path starting at token j (A.B) as an import and returns the token
// after it.
func (p *parser) path(j int) int {
	start := j
	for j < len(p.toks) && (p.toks[j].kind == tAlias || p.is(j, '.') && j+1 < len(p.toks) && p.toks[j+1].kind == tAlias) {
		j++
	}
	if j > start {
		p.out.Import(p.out.Name(int(p.toks[start].a), int(p.toks[j-1].b)))
	}
	return j
}

// alias reads "alias A.B", "alias A.B, as: C" and "alias A.{B, C}".
func (p *parser) alias(j int) {
	start := j
	for j < len(p.toks) && (p.toks[j].kind == tAlias || p.is(j, '.') && j+1 < len(p.toks) && p.toks[j+1].kind == tAlias) {
		j++
	}
	prefix := string(p.src[p.toks[start].a:p.toks[max(j-1, start)].b])
	if j == start {
		return
	}
	if !p.is(j, '.') || !p.is(j+1, '{') {
		p.out.Import(prefix)
		return
	}
	for k := j + 2; k < len(p.toks) && !p.is(k, '}') && p.toks[k].kind != tNL; k++ {
		if p.toks[k].kind == tAlias && !p.is(k-1, '.') {
			e := k
			for e+2 < len(p.toks) && p.is(e+1, '.') && p.toks[e+2].kind == tAlias {
				e += 2
			}
			p.out.Import(prefix + "." + string(p.src[p.toks[k].a:p.toks[e].b]))
			k = e
		}
	}
}

// attribute handles @name: set at the start of an expression (@endpoint "x"), read
// elsewhere.
func (p *parser) attribute(i int) {
	if p.statement(i) && i+1 < len(p.toks) && p.toks[i+1].sp && p.toks[i+1].kind != tNL {
		p.assign, p.assignTok, p.attr = p.Text(i), i+1, true
		return
	}
	if p.operandStart(i) && p.concatAfter(i) {
		p.value(i)
	}
}

// label handles "name:" (a keyword in a keyword list); do:, else: and their kin are no keys.
func (p *parser) label(i int) {
	t := &p.toks[i]
	name := ""
	if t.p1 > t.p0 { // "name":
		if t.p1-t.p0 == 1 && !p.parts[t.p0].Hole {
			name = p.out.Intern([]byte(p.parts[t.p0].Literal(p.src)))
		}
	} else {
		switch string(p.src[t.a:t.b]) {
		case "do", "else", "after", "rescue", "catch":
			return
		}
		name = p.Text(i)
	}
	p.key(name, int(t.s))
}

// pair handles "=>": the single token before it in the frame is a key.
func (p *parser) pair(i int) {
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
			name = p.out.Intern([]byte(p.parts[t.p0].Literal(p.src)))
		}
	case tAtom, tIdent:
		name = p.Text(k)
	}
	p.key(name, int(t.s))
}

// key gives the next value in the innermost frame a key, and records it on its call.
func (p *parser) key(name string, off int) {
	f := p.fr.Top()
	f.Key = name
	if f.Call >= 0 {
		p.out.AddKey(f.Call, name, off, f.Depth)
	}
}

// atom handles an atom: the value of a key (method: :post) is recorded as a value, its
// name; other atoms are not strings.
func (p *parser) atom(i int) {
	f := p.fr.Top()
	if f.Key == "" || i == 0 || p.toks[i-1].kind != tLabel && !p.is(i-1, opPair) {
		return
	}
	p.fold.Reset()
	t := &p.toks[i]
	if t.p1 > t.p0 {
		p.fold.Parts(p.parts[t.p0:t.p1], p.src, nil)
	} else {
		p.fold.LitBytes(p.src[t.a:t.b])
	}
	p.out.AddStr(&p.fold, int(t.s), int(t.b), p.fr.Ctx())
}
