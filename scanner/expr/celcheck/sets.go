package celcheck

import (
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
)

// Integer and IP sets are lowered to one string constant holding the set's
// elements ("1 3..5", "10.0.0.0/8 192.0.2.1..192.0.2.9"): one CEL node instead of
// one per element keeps checking fast, and the parsed set is cached by that
// text so an evaluation parses it once.

type intSet [][2]int64

func (s intSet) has(v int64) bool {
	for _, r := range s {
		if r[0] <= v && v <= r[1] {
			return true
		}
	}
	return false
}

type ipSet struct {
	prefixes []netip.Prefix
	ranges   [][2]netip.Addr
}

func (s *ipSet) has(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	for _, r := range s.ranges {
		if a.BitLen() == r[0].BitLen() && r[0].Compare(a) <= 0 && a.Compare(r[1]) <= 0 {
			return true
		}
	}
	return false
}

func parseIntSet(text string) (intSet, error) {
	var out intSet
	for _, f := range strings.Fields(text) {
		lo, hi, isRange := strings.Cut(f, "..")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil {
				return nil, err
			}
		}
		out = append(out, [2]int64{a, b})
	}
	return out, nil
}

// parseIPElem adds one address, CIDR or lo..hi range to s.
func (s *ipSet) add(f string) error {
	if lo, hi, ok := strings.Cut(f, ".."); ok {
		a, err := netip.ParseAddr(lo)
		if err != nil {
			return err
		}
		b, err := netip.ParseAddr(hi)
		if err != nil {
			return err
		}
		s.ranges = append(s.ranges, [2]netip.Addr{a.Unmap(), b.Unmap()})
		return nil
	}
	if strings.Contains(f, "/") {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return err
		}
		s.prefixes = append(s.prefixes, p.Masked())
		return nil
	}
	a, err := netip.ParseAddr(f)
	if err != nil {
		return err
	}
	a = a.Unmap()
	s.prefixes = append(s.prefixes, netip.PrefixFrom(a, a.BitLen()))
	return nil
}

func parseIPSet(text string) (*ipSet, error) {
	s := &ipSet{}
	for _, f := range strings.Fields(text) {
		if err := s.add(f); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// boundedCache is a concurrent map that stops growing at max entries (the
// values are cheap to rebuild; what matters is that hostile input cannot grow
// it without bound).
type boundedCache struct {
	m   sync.Map
	mu  sync.Mutex
	n   int
	max int
}

func (c *boundedCache) get(key string, build func() (any, error)) (any, error) {
	if v, ok := c.m.Load(key); ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.n < c.max {
		if _, loaded := c.m.LoadOrStore(key, v); !loaded {
			c.n++
		}
	}
	c.mu.Unlock()
	return v, nil
}

var setCache = &boundedCache{max: 4096}

func implInIntSet(args ...ref.Val) ref.Val {
	text := str(args[1])
	s, err := setCache.get("i:"+text, func() (any, error) { return parseIntSet(text) })
	if err != nil {
		return types.NewErr("invalid integer set %q: %v", text, err)
	}
	return types.Bool(s.(intSet).has(num(args[0])))
}

func implInIPSet(args ...ref.Val) ref.Val {
	text := str(args[1])
	s, err := setCache.get("a:"+text, func() (any, error) { return parseIPSet(text) })
	if err != nil {
		return types.NewErr("invalid IP set %q: %v", text, err)
	}
	return types.Bool(s.(*ipSet).has(addr(args[0])))
}

// listsVal is the value of rules.lists in one evaluation: the caller's named
// lists, with each list's members parsed once per kind on first use.
type listsVal struct {
	lists map[string][]string
	mu    sync.Mutex
	ips   map[string]*ipSet
	ints  map[string]map[int64]bool
	strs  map[string]map[string]bool
}

func newListsVal(lists map[string][]string) *listsVal {
	return &listsVal{lists: lists}
}

func (l *listsVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("rules.Lists cannot be converted to %v", t)
}

func (l *listsVal) ConvertToType(t ref.Type) ref.Val {
	if t == listsType {
		return l
	}
	return types.NewErr("rules.Lists cannot be converted to %v", t)
}

func (l *listsVal) Equal(other ref.Val) ref.Val { return types.Bool(other == ref.Val(l)) }

func (l *listsVal) Type() ref.Type { return listsType }

func (l *listsVal) Value() any { return l.lists }

// errUnknownList is returned (as a CEL error) for a list the caller did not provide.
type errUnknownList string

func (e errUnknownList) Error() string { return fmt.Sprintf("list $%s is not defined", string(e)) }

func implInList(args ...ref.Val) ref.Val {
	l, ok := args[1].(*listsVal)
	if !ok {
		return types.NoSuchOverloadErr()
	}
	name := str(args[2])
	members, found := l.lists[name]
	if !found {
		return types.WrapErr(errUnknownList(name))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch v := args[0].(type) {
	case ext.IP:
		if l.ips == nil {
			l.ips = map[string]*ipSet{}
		}
		s, ok := l.ips[name]
		if !ok {
			s = &ipSet{}
			for _, m := range members {
				if err := s.add(strings.TrimSpace(m)); err != nil {
					return types.NewErr("list $%s: %q is not an IP address, CIDR or range", name, m)
				}
			}
			l.ips[name] = s
		}
		return types.Bool(s.has(v.Addr))
	case types.Int:
		if l.ints == nil {
			l.ints = map[string]map[int64]bool{}
		}
		s, ok := l.ints[name]
		if !ok {
			s = map[int64]bool{}
			for _, m := range members {
				n, err := strconv.ParseInt(strings.TrimSpace(m), 10, 64)
				if err != nil {
					return types.NewErr("list $%s: %q is not an integer", name, m)
				}
				s[n] = true
			}
			l.ints[name] = s
		}
		return types.Bool(s[int64(v)])
	case types.String:
		if l.strs == nil {
			l.strs = map[string]map[string]bool{}
		}
		s, ok := l.strs[name]
		if !ok {
			s = map[string]bool{}
			for _, m := range members {
				s[m] = true
			}
			l.strs[name] = s
		}
		return types.Bool(s[string(v)])
	}
	return types.NoSuchOverloadErr()
}
