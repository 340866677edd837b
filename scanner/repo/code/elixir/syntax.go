package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Name handles an identifier: keywords, definitions, imports, and names that start a
// concatenation or call a function without parentheses.
func (p *parser) Name(i int) {
	if p.Keyword(i) {
		p.keyword(i)
		return
	}
	p.Concatenation(i)
	switch {
	case p.Is(i+1, '('):
	case p.Command(i):
		p.Call(i, rubylike.FrameCall, i)
	case !p.Is(i+1, '.') && p.Is(lexkit.ChainStart(p, i)-1, rubylike.OpPipe):
		callee, _ := p.Callee(i)
		c := p.Out.AddCall(callee, false, int(p.Toks[i].S)) // x |> Foo.bar
		p.Out.EndCall(c, int(p.Toks[i].B))
	}
}

// keyword handles a keyword.
func (p *parser) keyword(i int) {
	switch string(p.Bytes(i)) {
	case "do":
		p.EndCommands(i)
		if p.Head {
			p.Head = false
			p.Scope(rubylike.FrameBlock, i)
		} else {
			p.Fr.PushBlock(rubylike.FrameBlock, i)
		}
	case "fn":
		p.Fr.PushBlock(rubylike.FrameBlock, i)
	case "end":
		p.End(i)
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		if j := i + 1; j < len(p.Toks) && p.Toks[j].Kind == rubylike.Ident && !p.Word(j, "unquote") {
			p.Out.Decl(p.Text(j))
		}
		p.Head = true
	case "defmodule", "import", "require":
		p.path(i + 1)
	case "alias":
		p.alias(i + 1)
	case "use":
		j := p.path(i + 1)
		if j > i+1 {
			callee := []string{"use"}
			for k := i + 1; k < j; k++ {
				if p.Toks[k].Kind == rubylike.Const {
					callee = append(callee, p.Text(k))
				}
			}
			c := p.Out.AddCall(callee, false, int(p.Toks[j-1].S))
			p.Fr.PushCall(rubylike.FrameCall, c, i)
		}
	}
}

// pathEnd returns the token after the alias path starting at token j (A.B).
func (p *parser) pathEnd(j int) int {
	for j < len(p.Toks) && (p.Toks[j].Kind == rubylike.Const || p.Is(j, '.') && j+1 < len(p.Toks) && p.Toks[j+1].Kind == rubylike.Const) {
		j++
	}
	return j
}

// path records the alias path starting at token j (A.B) as an import and returns the token
// after it.
func (p *parser) path(j int) int {
	start := j
	j = p.pathEnd(j)
	if j > start {
		p.Out.Import(p.Out.Name(int(p.Toks[start].A), int(p.Toks[j-1].B)))
	}
	return j
}

// alias reads "alias A.B", "alias A.B, as: C" and "alias A.{B, C}".
func (p *parser) alias(j int) {
	start := j
	j = p.pathEnd(j)
	if j == start {
		return // "alias" ends the file
	}
	prefix := string(p.Src[p.Toks[start].A:p.Toks[j-1].B])
	if !p.Is(j, '.') || !p.Is(j+1, '{') {
		p.Out.Import(prefix)
		return
	}
	for k := j + 2; k < len(p.Toks) && !p.Is(k, '}') && p.Toks[k].Kind != rubylike.NL; k++ {
		if p.Toks[k].Kind == rubylike.Const && !p.Is(k-1, '.') {
			e := k
			for e+2 < len(p.Toks) && p.Is(e+1, '.') && p.Toks[e+2].Kind == rubylike.Const {
				e += 2
			}
			p.Out.Import(prefix + "." + string(p.Src[p.Toks[k].A:p.Toks[e].B]))
			k = e
		}
	}
}

// Variable handles a module attribute @name: set at the start of an expression (@endpoint "x"), read
// elsewhere.
func (p *parser) Variable(i int) {
	if p.statement(i) && i+1 < len(p.Toks) && p.Toks[i+1].Sp && p.Toks[i+1].Kind != rubylike.NL {
		p.Assign, p.AssignTok, p.AssignSigil = p.Text(i), i+1, true
		return
	}
	p.Concatenation(i)
}
