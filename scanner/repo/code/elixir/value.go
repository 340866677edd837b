package elixir

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"

// Target returns the variable ("x = ...") or module attribute ("@x ...") a value starting
// at token i is given, and whether it is an attribute.
func (p *parser) Target(i int) (string, bool) {
	if name, attr := p.Assigned(i); name != "" {
		return name, attr
	}
	if i >= 1 && p.Toks[i-1].Kind == rubylike.Var && p.Toks[i].Sp && p.statement(i-1) {
		return p.Text(i - 1), true
	}
	return "", false
}

// Tail adds nothing to a concatenation: Elixir has no format operator.
func (p *parser) Tail(_, end int) int { return end }

// statement reports whether token i starts an expression on its own.
func (p *parser) statement(i int) bool {
	return i == 0 || p.Toks[i-1].Kind == rubylike.NL || p.Is(i-1, ';') || p.Word(i-1, "do")
}
