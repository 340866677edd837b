package ruby

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"

// Name handles an identifier: keywords, requires, and names that start a concatenation or
// call a method without parentheses.
func (p *parser) Name(i int) {
	if p.Keyword(i) {
		p.keyword(i)
		return
	}
	switch string(p.Bytes(i)) {
	case "require", "require_relative", "load":
		j := i + 1
		if p.Is(j, '(') {
			j++
		}
		if j < len(p.Toks) && p.Toks[j].Kind == rubylike.Str {
			if name, ok := p.Literal(j); ok {
				p.Out.Import(name)
			}
		}
	}
	p.Concatenation(i)
	if !p.Is(i+1, '(') && p.Command(i) {
		p.Call(i, rubylike.FrameCall, i)
	}
}

// keyword handles a keyword.
func (p *parser) keyword(i int) {
	switch string(p.Bytes(i)) {
	case "def":
		p.def(i)
	case "class", "module":
		p.module(i)
	case "if", "unless", "while", "until":
		p.EndCommands(i)
		if !p.OperandEnds(i - 1) {
			p.Fr.PushBlock(frameKw, i)
			p.Head = p.Word(i, "while") || p.Word(i, "until")
		}
	case "case", "begin", "for":
		p.Fr.PushBlock(frameKw, i)
		p.Head = p.Word(i, "for")
	case "do":
		if p.Head {
			p.Head = false
			return
		}
		p.EndCommands(i)
		p.Fr.PushBlock(rubylike.FrameBlock, i)
	case "end":
		p.End(i)
	case "and", "or", "then", "rescue":
		p.EndCommands(i)
	case "super":
		if !p.Is(i+1, '(') && p.Command(i) {
			p.Call(i, rubylike.FrameCall, i)
		}
	}
}

// def reads "def name", "def self.name", "def name=" and opens the method's scope (an
// endless "def name(args) = expr" has none).
func (p *parser) def(i int) {
	j := i + 1
	if p.Word(j, "self") && p.Is(j+1, '.') {
		j += 2
	}
	if j >= len(p.Toks) || p.Toks[j].Kind != rubylike.Ident && p.Toks[j].Kind != rubylike.Const {
		p.Scope(frameDef, i)
		return
	}
	name := p.Text(j)
	k := j + 1
	if p.Is(k, '=') && p.Toks[k].S == p.Toks[j].B && p.Is(k+1, '(') {
		name += "="
		k++
	}
	p.Out.Decl(name)
	if p.Is(k, '(') && p.Toks[k].Match > int32(k) {
		k = int(p.Toks[k].Match) + 1
	}
	if p.Is(k, '=') {
		return // endless
	}
	p.Scope(frameDef, i)
}

// module reads "module A::B" and "class A::B < C::D": the names are imports; the body is a
// scope of its own.
func (p *parser) module(i int) {
	if p.Is(i+1, rubylike.OpShl) { // class << self
		p.Scope(frameDef, i)
		return
	}
	j := p.path(i + 1)
	if p.Is(j, '<') {
		p.path(j + 1)
	}
	p.Scope(frameDef, i)
}

// path records the constant path starting at token j (A::B) as an import and returns the
// token after it.
func (p *parser) path(j int) int {
	start := j
	for j < len(p.Toks) && (p.Toks[j].Kind == rubylike.Const || p.Is(j, rubylike.OpScope)) {
		j++
	}
	if j > start {
		p.Out.Import(p.Out.Name(int(p.Toks[start].A), int(p.Toks[j-1].B)))
	}
	return j
}
