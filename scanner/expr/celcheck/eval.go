package celcheck

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// Program is a checked expression ready to evaluate. It is safe for
// concurrent use; the CEL program is planned on the first Eval, so checking
// alone never pays for planning.
type Program struct {
	env     *environment
	checked *ast.AST
	src     string

	once sync.Once
	prg  cel.Program
	err  error
}

func newProgram(env *environment, checked *ast.AST, src string) *Program {
	return &Program{env: env, checked: checked, src: src}
}

// Source is the expression the program was checked from.
func (p *Program) Source() string { return p.src }

func (p *Program) plan() (cel.Program, error) {
	p.once.Do(func() {
		// OptOptimize folds constants and compiles the regular expressions of
		// matches once, at planning.
		p.prg, p.err = p.env.env.PlanProgram(p.checked, cel.EvalOptions(cel.OptOptimize))
	})
	return p.prg, p.err
}

// Request is one HTTP request as the Rules language sees it: field name ->
// value. Values are string, int64 (or int), bool, an IP address as a string
// or netip.Addr, []string, []int64, or map[string][]string, matching the
// field's type in the catalogue. A missing field takes its type's zero
// value: "", 0, false, 0.0.0.0, an empty array or map.
type Request map[string]any

// Eval evaluates the program on a request. lists holds the named lists used
// with "in $name" (name without $ -> members: addresses, CIDRs and a..b
// ranges for IP lists, decimal integers, or strings); a list the expression
// uses that lists lacks is an error.
func (p *Program) Eval(req Request, lists map[string][]string) (bool, error) {
	prg, err := p.plan()
	if err != nil {
		return false, err
	}
	out, _, err := prg.Eval(&activation{req: req, env: p.env, lists: newListsVal(lists)})
	if err != nil {
		return false, err
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("celcheck: expression evaluated to %v, not a boolean", out.Type())
	}
	return bool(b), nil
}

// Cost is CEL's static estimate of the evaluation cost (min and max, in
// CEL's cost units). Sizes of fields are unknown, so max can be large.
func (p *Program) Cost() (minCost, maxCost uint64, err error) {
	est, err := checker.Cost(p.checked, costEstimator{})
	if err != nil {
		return 0, 0, err
	}
	return est.Min, est.Max, nil
}

// costEstimator gives no hints: checker.Cost needs a non-nil estimator
// (a nil one panics), and CEL's defaults are right for the built-ins.
type costEstimator struct{}

func (costEstimator) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }

func (costEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// activation resolves field names against a Request, converting each value
// to its CEL form on use.
type activation struct {
	req   Request
	env   *environment
	lists *listsVal
}

func (a *activation) ResolveName(name string) (any, bool) {
	if name == varLists {
		return a.lists, true
	}
	t, ok := a.env.fieldTypes[name]
	if !ok {
		return nil, false
	}
	v, present := a.req[name]
	if !present || v == nil {
		return zeroValue(t), true
	}
	return toCEL(name, v, t), true
}

func (a *activation) Parent() interpreter.Activation { return nil }

func zeroValue(t *types.Type) ref.Val {
	switch t.Kind() {
	case types.StringKind:
		return types.String("")
	case types.IntKind:
		return types.Int(0)
	case types.BoolKind:
		return types.False
	case types.ListKind:
		return types.NewRefValList(types.DefaultTypeAdapter, nil)
	case types.MapKind:
		return types.NewRefValMap(types.DefaultTypeAdapter, map[ref.Val]ref.Val{})
	}
	return ext.IP{Addr: netip.IPv4Unspecified()}
}

// toCEL converts a request value to the CEL value of type t, or a CEL error
// naming the field when the value does not fit.
func toCEL(name string, v any, t *types.Type) ref.Val {
	var out ref.Val
	switch t.Kind() {
	case types.StringKind:
		if s, ok := v.(string); ok {
			out = types.String(s)
		}
	case types.IntKind:
		if n, ok := toInt(v); ok {
			out = types.Int(n)
		}
	case types.BoolKind:
		if b, ok := v.(bool); ok {
			out = types.Bool(b)
		}
	case types.OpaqueKind:
		out = ipToCEL(name, v)
	case types.ListKind:
		out = listToCEL(name, v, t.Parameters()[0])
	case types.MapKind:
		out = mapToCEL(name, v, t.Parameters()[1])
	}
	if out == nil {
		return types.NewErr("field %s is %s; the request gives %T", name, rulesTypeName(t), v)
	}
	return out
}

// ipToCEL converts an address, or a string spelling one; nil when v is
// neither.
func ipToCEL(name string, v any) ref.Val {
	switch a := v.(type) {
	case netip.Addr:
		return ext.IP{Addr: a}
	case string:
		ip, err := netip.ParseAddr(a)
		if err != nil {
			return types.NewErr("field %s: %q is not an IP address", name, a)
		}
		return ext.IP{Addr: ip}
	}
	return nil
}

// listToCEL converts an array with elements of type elem: a typed slice
// whose element type fits, or []any converted element by element; nil when
// v is neither.
func listToCEL(name string, v any, elem *types.Type) ref.Val {
	switch l := v.(type) {
	case []string:
		if elem.Kind() == types.StringKind {
			return types.NewStringList(types.DefaultTypeAdapter, l)
		}
	case []int64:
		if elem.Kind() == types.IntKind {
			out := make([]ref.Val, len(l))
			for i, n := range l {
				out[i] = types.Int(n)
			}
			return types.NewRefValList(types.DefaultTypeAdapter, out)
		}
	case []any:
		out := make([]ref.Val, len(l))
		for i, x := range l {
			if out[i] = toCEL(name, x, elem); types.IsError(out[i]) {
				return out[i]
			}
		}
		return types.NewRefValList(types.DefaultTypeAdapter, out)
	}
	return nil
}

// mapToCEL converts a map with string keys and values of type elem; nil
// when v is no such map.
func mapToCEL(name string, v any, elem *types.Type) ref.Val {
	switch m := v.(type) {
	case map[string][]string:
		return mapValuesToCEL(name, m, elem)
	case map[string]any:
		return mapValuesToCEL(name, m, elem)
	}
	return nil
}

// mapValuesToCEL converts each value of m, stopping at the first that does
// not fit.
func mapValuesToCEL[V any](name string, m map[string]V, elem *types.Type) ref.Val {
	out := make(map[ref.Val]ref.Val, len(m))
	for k, x := range m {
		if out[types.String(k)] = toCEL(name, x, elem); types.IsError(out[types.String(k)]) {
			return out[types.String(k)]
		}
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, out)
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// DecodeRequest reads a request from a JSON object of field -> value:
// strings, integers, booleans, IP addresses as strings, arrays, and for map
// fields objects whose values are a string or an array of strings. Unknown
// fields and values of the wrong type are errors.
func DecodeRequest(data []byte) (Request, error) {
	env, err := sharedEnv()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	slices.Sort(names)
	req := Request{}
	var errs []error
	for _, name := range names {
		t, ok := env.fieldTypes[name]
		if !ok {
			errs = append(errs, fmt.Errorf("request: unknown field %q", name))
			continue
		}
		v, err := decodeValue(raw[name], t)
		if err != nil {
			errs = append(errs, fmt.Errorf("request: field %s (%s): %w", name, rulesTypeName(t), err))
			continue
		}
		req[name] = v
	}
	return req, errors.Join(errs...)
}

// decodeValue converts a JSON value to the Go form a Request holds for a
// field of type t: a string, an int64, a bool, an address as a string, a
// []string or []int64 (else []any), or a map[string][]string (else
// map[string]any).
func decodeValue(v any, t *types.Type) (any, error) {
	switch t.Kind() {
	case types.StringKind:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case types.IntKind:
		if n, ok := toInt(v); ok {
			return n, nil
		}
	case types.BoolKind:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case types.OpaqueKind:
		if s, ok := v.(string); ok {
			if _, err := netip.ParseAddr(s); err != nil {
				return nil, fmt.Errorf("%q is not an IP address", s)
			}
			return s, nil
		}
	case types.ListKind:
		if l, ok := v.([]any); ok {
			return decodeList(l, t.Parameters()[0])
		}
	case types.MapKind:
		if m, ok := v.(map[string]any); ok {
			return decodeMap(m, t.Parameters()[1])
		}
	}
	return nil, fmt.Errorf("unexpected JSON value %v", v)
}

// decodeList decodes a JSON array of elem: strings and integers into their
// typed slices, anything else element by element into []any.
func decodeList(l []any, elem *types.Type) (any, error) {
	switch elem.Kind() {
	case types.StringKind:
		out := make([]string, len(l))
		for i, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is not a string", i)
			}
			out[i] = s
		}
		return out, nil
	case types.IntKind:
		out := make([]int64, len(l))
		for i, x := range l {
			n, ok := toInt(x)
			if !ok {
				return nil, fmt.Errorf("element %d is not an integer", i)
			}
			out[i] = n
		}
		return out, nil
	}
	out := make([]any, len(l))
	for i, x := range l {
		d, err := decodeValue(x, elem)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

// decodeMap decodes a JSON object whose values are of type elem. A map of
// string arrays (headers, cookies, query arguments) becomes a
// map[string][]string; any other map a map[string]any.
func decodeMap(m map[string]any, elem *types.Type) (any, error) {
	if elem.Kind() == types.ListKind && elem.Parameters()[0].Kind() == types.StringKind {
		return decodeStringsMap(m, elem)
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		d, err := decodeValue(x, elem)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		out[k] = d
	}
	return out, nil
}

// decodeStringsMap decodes an object of string arrays (elem) into a
// map[string][]string, where a lone string stands for an array of one.
func decodeStringsMap(m map[string]any, elem *types.Type) (any, error) {
	out := make(map[string][]string, len(m))
	for k, x := range m {
		switch x := x.(type) {
		case string:
			out[k] = []string{x}
		case []any:
			d, err := decodeValue(x, elem)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			out[k] = d.([]string)
		default:
			return nil, fmt.Errorf("key %q: want a string or an array of strings", k)
		}
	}
	return out, nil
}

// lru is a small least-recently-used cache of check results.
type lru struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[string]*list.Element
}

type lruEntry struct {
	key string
	val *Checked
}

// CacheSize is how many (expression, options) check results Check keeps.
const CacheSize = 2048

var programCache = &lru{max: CacheSize, ll: list.New(), m: map[string]*list.Element{}}

func (c *lru) get(key string) (*Checked, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*lruEntry).val, true
	}
	return nil, false
}

func (c *lru) put(key string, v *Checked) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		c.ll.MoveToFront(el)
		el.Value.(*lruEntry).val = v
		return
	}
	c.m[key] = c.ll.PushFront(&lruEntry{key, v})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.m, last.Value.(*lruEntry).key)
	}
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func cacheKey(src string, o Options) string {
	var b strings.Builder
	b.Grow(len(src) + len(o.Plan) + len(o.Phase) + 8)
	b.WriteString(o.Plan)
	b.WriteByte(0)
	b.WriteString(o.Phase)
	b.WriteByte(0)
	if o.Lists != nil {
		b.WriteString(strings.Join(o.Lists, "\x01"))
		b.WriteByte(1)
	}
	b.WriteByte(0)
	b.WriteString(src)
	return b.String()
}
