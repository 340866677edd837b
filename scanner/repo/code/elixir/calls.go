package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Brace opens a map or a struct (after % or %Name) or a tuple.
func (p *parser) Brace(i int) {
	if p.Is(i-1, '%') || p.Toks[max(i-1, 0)].Kind == rubylike.Const && p.Is(i-2, '%') {
		p.Fr.PushLiteral('{', i) // a map or a struct
	} else {
		p.Fr.PushList('{', i) // a tuple
	}
}

// Declared reports whether the name at token i is the one a def declares.
func (p *parser) Declared(i int) bool {
	return i > 0 && p.Toks[i-1].Kind == rubylike.Ident && defines(p.Bytes(i-1))
}

// defines reports whether b is a word that defines a function.
func defines(b []byte) bool {
	switch string(b) {
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		return true
	}
	return false
}

// Finish folds the value of Path.join when its arguments close at token i.
func (p *parser) Finish(f lexkit.Frame, i, end int) {
	c := p.Out.Call(f.Call)
	if len(c.Callee) != 2 || c.Callee[0] != "Path" || c.Callee[1] != "join" || f.Tok+1 >= i {
		return
	}
	if a := f.Tok + 1; p.Is(a, '[') && int(p.Toks[a].Match) == i-1 {
		p.joinList(f.Call, a, end, f.Outer)
		return
	}
	p.Out.Join(f.Call, int(p.Toks[f.Tok+1].S), end, f.Outer, &p.Fold)
}

// joinList folds Path.join([...]) (call) whose list opens at token open: its members
// joined with "/", a member that is no string a hole. The value stands where the call does
// (outer).
func (p *parser) joinList(call, open, end int, outer lexkit.Ctx) {
	closeAt := int(p.Toks[open].Match)
	var piece lexkit.Fold
	p.Fold.Reset()
	start := open + 1
	for k := open + 1; k <= closeAt; k++ {
		if k < closeAt && !p.Is(k, ',') {
			if p.Is(k, '(') || p.Is(k, '[') || p.Is(k, '{') {
				k = max(k, int(p.Toks[k].Match))
			}
			continue
		}
		switch t := &p.Toks[start]; {
		case k-start == 1 && t.Kind == rubylike.Str:
			piece.Reset()
			piece.Parts(p.Parts[t.P0:t.P1], p.Src, p.Lookup)
			p.Fold.JoinPiece(piece.Value(), piece.Names())
		case k-start == 1 && p.IsName(start):
			p.Fold.JoinPiece(code.HoleString, []string{p.Text(start)})
		case k > start:
			p.Fold.JoinPiece(code.HoleString, []string{""})
		}
		start = k + 1
	}
	p.Out.DropCallStrs(call)
	p.Out.AddStr(&p.Fold, int(p.Toks[open].S), end, outer)
}
