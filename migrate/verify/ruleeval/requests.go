package ruleeval

import (
	"iter"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
)

// threatScoreField is always 0 now (domain-facts): every generated request carries that value,
// so a rule on it is judged as it behaves today.
const threatScoreField = "cf.threat_score"

// Requests generates requests that exercise every condition of every expression: perRule
// from each expression alone (celcheck.GenerateRequests draws values from its literals), plus
// copies whose field compared with `matches` holds a string the pattern matches (the
// generator seldom satisfies anchors), and perSet from all expressions joined with "or", so
// that requests match several rules at once. Expressions that do not parse are passed over.
// The requests depend only on the arguments. They are made an expression at a time as they
// are asked for: a zone's thousands of requests are never all held at once.
func Requests(exprs []string, perRule, perSet int, seed int64) iter.Seq[celcheck.Request] {
	return func(yield func(celcheck.Request) bool) {
		var parts []string
		for i, src := range exprs {
			e, err := expr.Parse(src)
			if err != nil {
				continue
			}
			parts = append(parts, "("+expr.Print(e)+")")
			gen := celcheck.GenerateRequests(e, perRule, seed+int64(i))
			if !yieldAll(yield, slices.Values(gen)) || !yieldAll(yield, slices.Values(regexMatches(e, gen))) {
				return
			}
		}
		if len(parts) > 0 {
			// Parse keeps the whole tree when the only error is the length limit.
			e, _ := expr.Parse(strings.Join(parts, " or "))
			yieldAll(yield, celcheck.EachRequest(e, perSet, seed)) // drawn as judged: never all held
		}
	}
}

// yieldAll yields each request with the threat score every request carries today; false
// when the consumer stopped.
func yieldAll(yield func(celcheck.Request) bool, reqs iter.Seq[celcheck.Request]) bool {
	for r := range reqs {
		r[threatScoreField] = int64(0)
		if !yield(r) {
			return false
		}
	}
	return true
}

// regexMatches makes, for each plain field compared with matches, copies of half the
// requests whose field holds a string the regex matches.
func regexMatches(e *expr.Expr, gen []celcheck.Request) []celcheck.Request {
	var out []celcheck.Request
	expr.Inspect(e, func(n expr.Node) bool {
		c, ok := n.(*expr.Comparison)
		if !ok || c.Op != expr.OpMatches {
			return true
		}
		f, ok1 := c.X.(*expr.Field)
		lit, ok2 := c.Y.(*expr.StringLit)
		if !ok1 || !ok2 {
			return true
		}
		sample, ok := regexSample(lit.Value)
		if !ok {
			return true
		}
		for _, r := range gen[:len(gen)/2] {
			cp := maps.Clone(r)
			cp[f.Name] = sample
			out = append(out, cp)
		}
		return true
	})
	return out
}

// regexSample builds one string that the pattern matches (first branch of alternations,
// minimum repetitions, first character of classes).
func regexSample(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeSample(&b, re) {
		return "", false
	}
	if ok, _ := regexp.MatchString(pattern, b.String()); !ok {
		return "", false
	}
	return b.String(), true
}

// writeSample writes a shortest string re matches, or reports that it cannot.
func writeSample(b *strings.Builder, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		r := re.Rune[0]
		if r < 'a' && re.Rune[1] >= 'a' {
			r = 'a'
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch,
		syntax.OpStar, syntax.OpQuest:
	case syntax.OpCapture, syntax.OpPlus, syntax.OpAlternate:
		return writeSample(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			if !writeSample(b, re.Sub[0]) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !writeSample(b, s) {
				return false
			}
		}
	default:
		return false
	}
	return true
}
