package fix

import (
	"math/big"
	"sort"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// literalReader reads a resource's attributes and nested blocks whose values the repository
// holds (literals, variables with known values, locals); what it cannot read is named in
// unknown, by its path in the resource, so the resource is left with the reason.
type literalReader struct {
	ev      *evaluator
	in      instance // the instance being read, of a resource with count or for_each
	unknown []string
}

// body is a nested block being read and its path ("match.request").
type body struct {
	rd   *literalReader
	b    *hclsyntax.Body
	path string
}

func newLiteralReader(ev *evaluator, r *Resource) body {
	return newInstanceReader(ev, r, instance{})
}

// newInstanceReader reads one instance of r: each.key, each.value and count.index are
// the instance's.
func newInstanceReader(ev *evaluator, r *Resource, in instance) body {
	rd := &literalReader{ev: ev, in: in}
	b := body{rd: rd, b: r.Block.Body}
	b.noDynamic()
	return b
}

// noDynamic marks the block's dynamic blocks unknown: their content depends on a collection.
func (b body) noDynamic() {
	for _, blk := range b.b.Blocks {
		if blk.Type == "dynamic" && len(blk.Labels) == 1 {
			b.rd.unknown = append(b.rd.unknown, b.name(blk.Labels[0])+" (a dynamic block)")
		}
	}
}

func (b body) name(n string) string {
	if b.path == "" {
		return n
	}
	return b.path + "." + n
}

// block is the first nested block called name; ok is false when there is none.
func (b body) block(name string) (body, bool) {
	for _, blk := range b.b.Blocks {
		if blk.Type == name {
			nb := body{rd: b.rd, b: blk.Body, path: b.name(name)}
			nb.noDynamic()
			return nb, true
		}
	}
	return body{}, false
}

// value is the attribute converted to want: null when it is not set, false (and recorded)
// when it is set but not known.
func (b body) value(name string, want cty.Type) (cty.Value, bool) {
	a, ok := b.b.Attributes[name]
	if !ok {
		return cty.NullVal(want), true
	}
	v, ok := known(b.rd.ev, a.Expr, b.rd.in, want)
	if !ok {
		b.rd.unknown = append(b.rd.unknown, b.name(name))
	}
	return v, ok
}

func (b body) has(name string) bool { _, ok := b.b.Attributes[name]; return ok }

func (b body) str(name string) string {
	if v, ok := b.value(name, cty.String); ok && !v.IsNull() {
		return v.AsString()
	}
	return ""
}

func (b body) integer(name string) int {
	if v, ok := b.value(name, cty.Number); ok && !v.IsNull() {
		n, acc := v.AsBigFloat().Int64()
		if acc != big.Exact {
			b.rd.unknown = append(b.rd.unknown, b.name(name)+" (not a whole number)")
		}
		return int(n)
	}
	return 0
}

func (b body) boolean(name string) bool {
	v, ok := b.value(name, cty.Bool)
	return ok && !v.IsNull() && v.True()
}

// strs reads a list or set of strings, sorted when it is a set.
func (b body) strs(name string) []string {
	v, ok := b.value(name, cty.List(cty.String))
	if !ok || v.IsNull() {
		return nil
	}
	var out []string
	for _, e := range v.AsValueSlice() {
		if !e.IsNull() {
			out = append(out, e.AsString())
		}
	}
	return out
}

func (b body) ints(name string) []int {
	v, ok := b.value(name, cty.List(cty.Number))
	if !ok || v.IsNull() {
		return nil
	}
	var out []int
	for _, e := range v.AsValueSlice() {
		n, _ := e.AsBigFloat().Int64()
		out = append(out, int(n))
	}
	sort.Ints(out)
	return out
}

// objects reads a list of objects of string attributes (headers = [{name = ..., op = ...}]).
func (b body) objects(name string) []map[string]string {
	v, ok := b.value(name, cty.List(cty.Map(cty.String)))
	if !ok || v.IsNull() {
		return nil
	}
	var out []map[string]string
	for _, e := range v.AsValueSlice() {
		m := map[string]string{}
		for k, x := range e.AsValueMap() {
			if !x.IsNull() {
				m[k] = x.AsString()
			}
		}
		out = append(out, m)
	}
	return out
}

// strMap reads a map of strings (rules = { "100015" = "disable" }).
func (b body) strMap(name string) map[string]string {
	v, ok := b.value(name, cty.Map(cty.String))
	if !ok || v.IsNull() {
		return nil
	}
	out := map[string]string{}
	for k, x := range v.AsValueMap() {
		if !x.IsNull() {
			out[k] = x.AsString()
		}
	}
	return out
}
