package celcheck

import (
	"iter"
	"math/rand/v2"
	"net/netip"
	"regexp/syntax"
	"slices"
	"strings"

	"cel.dev/cel-go/common/types"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// hints are the literals an expression compares a field with, so generated
// requests hit both sides of each condition.
type hints struct {
	strs []string
	ints []int64
	ips  []netip.Prefix // an address is a full-length prefix
	keys []string       // map keys used with field["key"]
}

// GenerateRequests builds n requests for equivalence tests of e: every
// catalogue field gets a random value of its type, and the fields e uses
// get, more often than not, values derived from the literals e compares them
// with (the literal itself, its case flipped, embedded in other text, a
// wildcard pattern filled in, neighbours of integers, addresses inside and
// just outside CIDRs and ranges), so that both matching and non-matching
// requests occur. A deprecated field and its new name always get the same
// value, so an expression and its renamed translation see the same request.
// The result depends only on e, n and seed.
func GenerateRequests(e *expr.Expr, n int, seed int64) []Request {
	var out []Request
	for req := range EachRequest(e, n, seed) {
		out = append(out, req)
	}
	return out
}

// EachRequest yields GenerateRequests' requests one at a time as they are asked for, the
// same ones in the same order: a consumer that judges each and lets it go never holds them
// all (400 requests drawn from a zone of thousands of rules are megabytes).
func EachRequest(e *expr.Expr, n int, seed int64) iter.Seq[Request] {
	return func(yield func(Request) bool) {
		env, err := sharedEnv()
		if err != nil || n <= 0 {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		gens := fieldGenerators(env, collectHints(e))
		fields := env.fields.All()
		for range n {
			req := make(Request, len(fields))
			for _, g := range gens {
				req[g.name] = genValue(rng, g.t, g.h, g.hinted)
			}
			for _, f := range fields {
				if f.RenamedTo != "" {
					req[f.Name] = req[f.RenamedTo]
				}
			}
			if !yield(req) {
				return
			}
		}
	}
}

// fieldGenerator is what one field's values are drawn from: its type and the hints of the
// expression, those given under the field's old name included.
type fieldGenerator struct {
	name   string
	t      *types.Type
	h      *hints
	hinted bool
}

// fieldGenerators prepares each field once, in catalogue order (the order values are drawn
// in, which keeps a seed's requests stable); renamed fields are copied from their new name.
func fieldGenerators(env *environment, h hintsMap) []fieldGenerator {
	fields := env.fields.All()
	var gens []fieldGenerator
	for _, f := range fields {
		if f.RenamedTo != "" {
			continue // copied from the new name
		}
		fh := h[f.Name]
		for _, old := range fields {
			if old.RenamedTo == f.Name {
				fh = mergeHints(fh, h[old.Name])
			}
		}
		if fh == nil {
			fh = &hints{}
		}
		gens = append(gens, fieldGenerator{name: f.Name, t: env.fieldTypes[f.Name], h: fh, hinted: fh.hasAny()})
	}
	return gens
}

func (h *hints) hasAny() bool {
	return h != nil && (len(h.strs)+len(h.ints)+len(h.ips)+len(h.keys)) > 0
}

func mergeHints(a, b *hints) *hints {
	if b == nil {
		return a
	}
	if a == nil {
		return b
	}
	return &hints{
		strs: append(slices.Clone(a.strs), b.strs...),
		ints: append(slices.Clone(a.ints), b.ints...),
		ips:  append(slices.Clone(a.ips), b.ips...),
		keys: append(slices.Clone(a.keys), b.keys...),
	}
}

// hintsMap maps a field name to its hints (a map of pointers so that
// hasAny works on the merged value).
type hintsMap map[string]*hints

func (m hintsMap) get(name string) *hints {
	if m[name] == nil {
		m[name] = &hints{}
	}
	return m[name]
}

func collectHints(e *expr.Expr) hintsMap {
	m := hintsMap{}
	addLits := func(fields []string, lits []expr.Node) {
		for _, f := range fields {
			h := m.get(f)
			for _, l := range lits {
				addLiteral(h, l)
			}
		}
	}
	expr.Inspect(e, func(n expr.Node) bool {
		switch n := n.(type) {
		case *expr.Comparison:
			fs := baseFields(n.X)
			var lits []expr.Node
			expr.Inspect(n.Y, func(x expr.Node) bool {
				switch x.(type) {
				case *expr.StringLit, *expr.IntLit, *expr.IPLit, *expr.BytesLit:
					lits = append(lits, x)
				}
				return true
			})
			if n.Op == expr.OpMatches {
				if s, ok := n.Y.(*expr.StringLit); ok {
					for _, f := range fs {
						m.get(f).strs = append(m.get(f).strs, regexLiterals(s.Value)...)
					}
					lits = nil
				}
			}
			addLits(fs, lits)
		case *expr.Call:
			var fs []string
			var lits []expr.Node
			for _, a := range n.Args {
				switch a.(type) {
				case *expr.StringLit, *expr.IntLit, *expr.IPLit:
					lits = append(lits, a)
				default:
					fs = append(fs, baseFields(a)...)
				}
			}
			addLits(fs, lits)
		case *expr.IndexExpr:
			if s, ok := n.Index.(*expr.StringLit); ok {
				for _, f := range baseFields(n.X) {
					m.get(f).keys = append(m.get(f).keys, s.Value)
				}
			}
		}
		return true
	})
	return m
}

// baseFields lists the fields an operand is computed from.
func baseFields(n expr.Node) []string {
	var out []string
	for _, r := range expr.Fields(n) {
		out = append(out, r.Name)
	}
	return out
}

func addLiteral(h *hints, l expr.Node) {
	switch l := l.(type) {
	case *expr.StringLit:
		h.strs = append(h.strs, l.Value)
	case *expr.BytesLit:
		h.strs = append(h.strs, string(l.Value))
	case *expr.IntLit:
		h.ints = append(h.ints, l.Value)
	case *expr.IPLit:
		h.ips = append(h.ips, l.Prefix().Masked())
		if !l.IsCIDR() {
			h.ips[len(h.ips)-1] = netip.PrefixFrom(l.Addr, l.Addr.BitLen())
		}
	}
}

// regexLiterals extracts the literal runs of a regular expression.
func regexLiterals(p string) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral {
			out = append(out, string(r.Rune))
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	if len(out) > 1 {
		out = append(out, strings.Join(out, ""))
	}
	return out
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-"

func randString(rng *rand.Rand, maxLen int) string {
	b := make([]byte, rng.IntN(maxLen+1))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func flipCase(rng *rand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if rng.IntN(2) == 0 {
			b[i] = upperByte(c)
		} else {
			b[i] = lowerByte(c)
		}
	}
	return string(b)
}

func genString(rng *rand.Rand, h *hints, useHints bool) string {
	if !useHints || len(h.strs) == 0 || rng.IntN(10) < 3 {
		return randString(rng, 12)
	}
	s := h.strs[rng.IntN(len(h.strs))]
	if strings.Contains(s, "*") {
		// Fill in a wildcard pattern (its escapes kept as the literal characters).
		var b strings.Builder
		for _, t := range wildcardTokens(s) {
			if t == starTok {
				b.WriteString(randString(rng, 4))
			} else {
				b.WriteByte(byte(t))
			}
		}
		s = b.String()
	}
	switch rng.IntN(6) {
	case 0:
		return flipCase(rng, s)
	case 1:
		return randString(rng, 4) + s + randString(rng, 4)
	case 2:
		return s + randString(rng, 3)
	case 3:
		if len(s) > 0 {
			return s[:rng.IntN(len(s))]
		}
	}
	return s
}

func genInt(rng *rand.Rand, h *hints, useHints bool) int64 {
	if !useHints || len(h.ints) == 0 || rng.IntN(10) < 3 {
		if rng.IntN(4) == 0 {
			return rng.Int64N(1 << 20)
		}
		return rng.Int64N(1000)
	}
	v := h.ints[rng.IntN(len(h.ints))]
	return v + int64(rng.IntN(3)) - 1
}

func genIP(rng *rand.Rand, h *hints, useHints bool) netip.Addr {
	if !useHints || len(h.ips) == 0 || rng.IntN(10) < 3 {
		var b4 [4]byte
		var b16 [16]byte
		if rng.IntN(4) == 0 {
			for i := range b16 {
				b16[i] = byte(rng.IntN(256))
			}
			return netip.AddrFrom16(b16)
		}
		for i := range b4 {
			b4[i] = byte(rng.IntN(256))
		}
		return netip.AddrFrom4(b4)
	}
	p := h.ips[rng.IntN(len(h.ips))]
	a := p.Addr()
	switch rng.IntN(4) {
	case 0: // a random address inside the prefix
		b := a.AsSlice()
		for bit := p.Bits(); bit < len(b)*8; bit++ {
			if rng.IntN(2) == 1 {
				b[bit/8] |= 1 << (7 - bit%8)
			}
		}
		a, _ = netip.AddrFromSlice(b)
	case 1: // just before the prefix
		if prev := a.Prev(); prev.IsValid() {
			a = prev
		}
	case 2: // the last address of the prefix, or just after it
		b := a.AsSlice()
		for bit := p.Bits(); bit < len(b)*8; bit++ {
			b[bit/8] |= 1 << (7 - bit%8)
		}
		a, _ = netip.AddrFromSlice(b)
		if rng.IntN(2) == 0 {
			if next := a.Next(); next.IsValid() {
				a = next
			}
		}
	}
	return a
}

func genValue(rng *rand.Rand, t *types.Type, h *hints, useHints bool) any {
	switch t.Kind() {
	case types.StringKind:
		return genString(rng, h, useHints)
	case types.IntKind:
		return genInt(rng, h, useHints)
	case types.BoolKind:
		return rng.IntN(2) == 0
	case types.OpaqueKind:
		return genIP(rng, h, useHints).String()
	case types.ListKind:
		elem := t.Parameters()[0]
		k := rng.IntN(4)
		switch elem.Kind() {
		case types.IntKind:
			out := make([]int64, k)
			for i := range out {
				out[i] = genInt(rng, h, useHints)
			}
			return out
		default:
			out := make([]string, k)
			for i := range out {
				out[i] = genString(rng, h, useHints)
			}
			return out
		}
	case types.MapKind:
		out := map[string][]string{}
		var keys []string
		if useHints {
			for _, k := range h.keys {
				if rng.IntN(4) != 0 {
					keys = append(keys, k)
				}
			}
		}
		for range rng.IntN(3) {
			keys = append(keys, strings.ToLower(randString(rng, 6)))
		}
		for _, k := range keys {
			vals := make([]string, 1+rng.IntN(2))
			for i := range vals {
				vals[i] = genString(rng, h, useHints)
			}
			out[k] = vals
		}
		return out
	}
	return nil
}
