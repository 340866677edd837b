package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Target returns the variable a value starting at token i is assigned to ("x = ...",
// "@x = ...", "self.x = ..."), and whether it is an instance variable.
func (p *parser) Target(i int) (string, bool) { return p.Assigned(i) }

// Tail folds "format" % args after a concatenation starting with a string at token first:
// the value so far is the format.
func (p *parser) Tail(first, end int) int {
	if p.Is(end, '%') && p.Toks[first].Kind == rubylike.Str {
		return p.percent(end)
	}
	return end
}

// percent folds "format" % args: the value so far is the format; args is one operand or
// an array of them. It returns the token after the arguments.
func (p *parser) percent(pct int) int {
	var args []string
	j := pct + 1
	end := p.OperandEnd(j)
	if p.Is(j, '[') && p.Toks[j].Match > int32(j) {
		end = int(p.Toks[j].Match) + 1
		start := j + 1
		for k := j + 1; k < end; k++ {
			if k == end-1 || p.Is(k, ',') {
				name := ""
				if k-start == 1 && p.IsName(start) {
					name = p.Text(start)
				}
				args = append(args, name)
				start = k + 1
			}
		}
	} else if end == j+1 && p.IsName(j) {
		args = []string{p.Text(j)}
	}
	if end <= j {
		return pct
	}
	value, names := p.Fold.Value(), p.Fold.Names()
	p.Fold.Reset()
	lexkit.Printf(&p.Fold, value, names, args)
	return end
}
