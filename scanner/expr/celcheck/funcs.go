package celcheck

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
)

// The bindings below implement the Rules functions the way the engine
// documents them. Strings are byte strings: lower/upper and the wildcard's
// case folding are ASCII only, lengths and substring indexes count bytes.

func str(v ref.Val) string { s, _ := v.(types.String); return string(s) }

func num(v ref.Val) int64 { i, _ := v.(types.Int); return int64(i) }

func addr(v ref.Val) netip.Addr { ip, _ := v.(ext.IP); return ip.Addr }

func implAny(args ...ref.Val) ref.Val { return quantify(args[0], true) }

func implAll(args ...ref.Val) ref.Val { return quantify(args[0], false) }

// quantify is any (exists=true) or all over a list of booleans.
func quantify(v ref.Val, exists bool) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.NoSuchOverloadErr()
	}
	it := l.Iterator()
	for it.HasNext() == types.True {
		if b, _ := it.Next().(types.Bool); bool(b) == exists {
			return types.Bool(exists)
		}
	}
	return types.Bool(!exists)
}

func asciiMap(s string, f func(byte) byte) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = f(c)
	}
	return string(b)
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperByte(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func implLower(args ...ref.Val) ref.Val { return types.String(asciiMap(str(args[0]), lowerByte)) }

func implUpper(args ...ref.Val) ref.Val { return types.String(asciiMap(str(args[0]), upperByte)) }

func implLen(args ...ref.Val) ref.Val {
	switch v := args[0].(type) {
	case types.String:
		return types.Int(len(v))
	case traits.Sizer:
		return v.Size()
	}
	return types.NoSuchOverloadErr()
}

func implStartsWith(args ...ref.Val) ref.Val {
	return types.Bool(strings.HasPrefix(str(args[0]), str(args[1])))
}

func implEndsWith(args ...ref.Val) ref.Val {
	return types.Bool(strings.HasSuffix(str(args[0]), str(args[1])))
}

func implConcatStrings(args ...ref.Val) ref.Val {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(str(a))
	}
	return types.String(b.String())
}

func implConcatLists(args ...ref.Val) ref.Val {
	var out []ref.Val
	for _, a := range args {
		l, ok := a.(traits.Lister)
		if !ok {
			return types.NoSuchOverloadErr()
		}
		it := l.Iterator()
		for it.HasNext() == types.True {
			out = append(out, it.Next())
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

// implURLDecode decodes %HH escapes and '+' as a space. Option "u" also
// decodes %uHHHH (UTF-16 code units as UTF-8); option "r" decodes again
// until nothing changes. Malformed escapes are kept as written.
func implURLDecode(args ...ref.Val) ref.Val {
	s := str(args[0])
	opts := ""
	if len(args) > 1 {
		opts = str(args[1])
	}
	unicode, recursive := strings.Contains(opts, "u"), strings.Contains(opts, "r")
	for range 16 {
		d := urlDecodeOnce(s, unicode)
		if !recursive || d == s {
			return types.String(d)
		}
		s = d
	}
	return types.String(s)
}

func urlDecodeOnce(s string, unicode bool) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && unicode && i+5 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U'):
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(v))
				i += 5
			} else {
				b.WriteByte(c)
			}
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// jsonKey is a key argument of lookup_json_*: a String (object member) or an
// Int (array index).
type jsonKey struct{ ref.Val }

func (k jsonKey) Type() ref.Type { return jsonKeyType }

func (k jsonKey) ConvertToType(t ref.Type) ref.Val {
	if t == jsonKeyType {
		return k
	}
	return k.Val.ConvertToType(t)
}

func (k jsonKey) Equal(other ref.Val) ref.Val {
	if o, ok := other.(jsonKey); ok {
		return k.Val.Equal(o.Val)
	}
	return types.False
}

func implJSONKey(args ...ref.Val) ref.Val { return jsonKey{args[0]} }

// lookupJSON walks a JSON document along keys; ok is false when the path
// does not exist or the document is not JSON.
func lookupJSON(args []ref.Val) (any, bool) {
	var doc any
	if err := json.Unmarshal([]byte(str(args[0])), &doc); err != nil {
		return nil, false
	}
	for _, a := range args[1:] {
		k, _ := a.(jsonKey)
		switch key := k.Val.(type) {
		case types.String:
			m, ok := doc.(map[string]any)
			if !ok {
				return nil, false
			}
			if doc, ok = m[string(key)]; !ok {
				return nil, false
			}
		case types.Int:
			l, ok := doc.([]any)
			if !ok || key < 0 || int(key) >= len(l) {
				return nil, false
			}
			doc = l[key]
		default:
			return nil, false
		}
	}
	return doc, true
}

// implLookupJSONString returns the string at the path, or "" when there is
// none (the engine yields no value; a comparison with "" is the one place
// the two differ).
func implLookupJSONString(args ...ref.Val) ref.Val {
	v, ok := lookupJSON(args)
	if s, isStr := v.(string); ok && isStr {
		return types.String(s)
	}
	return types.String("")
}

// implLookupJSONInteger returns the integer at the path, or 0.
func implLookupJSONInteger(args ...ref.Val) ref.Val {
	v, ok := lookupJSON(args)
	if f, isNum := v.(float64); ok && isNum && f == float64(int64(f)) {
		return types.Int(int64(f))
	}
	return types.Int(0)
}

// implSubstring takes byte indexes [start, end); negative indexes count from
// the end; out-of-range indexes are clamped.
func implSubstring(args ...ref.Val) ref.Val {
	s := str(args[0])
	n := int64(len(s))
	clamp := func(i int64) int64 {
		if i < 0 {
			i += n
		}
		return max(0, min(i, n))
	}
	start, end := clamp(num(args[1])), n
	if len(args) > 2 {
		end = clamp(num(args[2]))
	}
	if start >= end {
		return types.String("")
	}
	return types.String(s[start:end])
}

func implRemoveBytes(args ...ref.Val) ref.Val {
	s, drop := str(args[0]), str(args[1])
	var set [256]bool
	for i := 0; i < len(drop); i++ {
		set[drop[i]] = true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !set[s[i]] {
			b = append(b, s[i])
		}
	}
	return types.String(b)
}

// implDecodeBase64 accepts standard and URL-safe alphabets, padded or not;
// invalid input decodes to "".
func implDecodeBase64(args ...ref.Val) ref.Val {
	s := str(args[0])
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return types.String(b)
		}
	}
	return types.String("")
}

// implCIDR masks an address: IPv4 to the first prefix length, IPv6 to the second.
func implCIDR(args ...ref.Val) ref.Val {
	a := addr(args[0])
	bits := num(args[1])
	if a.Is6() {
		bits = num(args[2])
	}
	return maskIP(a, bits)
}

// implCIDR6 masks an IPv6 address; IPv4 addresses pass unchanged.
func implCIDR6(args ...ref.Val) ref.Val {
	a := addr(args[0])
	if a.Is4() {
		return ext.IP{Addr: a}
	}
	return maskIP(a, num(args[1]))
}

func maskIP(a netip.Addr, bits int64) ref.Val {
	if bits < 0 || bits > int64(a.BitLen()) {
		return types.NewErr("prefix length %d out of range for %s", bits, a)
	}
	p, err := a.Prefix(int(bits))
	if err != nil {
		return types.NewErr("%v", err)
	}
	return ext.IP{Addr: p.Addr()}
}

// implTimedHMAC follows the documented token layout
// <message><separator><timestamp>-<mac>: the timestamp is the 10 digits
// before the last "-", the separator is the given number of bytes before it,
// and mac is the Base64 HMAC-SHA256 (URL-safe alphabet with flag "s") of
// <message><timestamp> under the key, possibly percent-encoded. The token is
// valid when its timestamp is at most ttl seconds before currentTimestamp.
func implTimedHMAC(args ...ref.Val) ref.Val {
	key, token, ttl, now := str(args[0]), str(args[1]), num(args[2]), num(args[3])
	var sepLen int64
	if len(args) > 4 {
		sepLen = num(args[4])
	}
	flags := ""
	if len(args) > 5 {
		flags = str(args[5])
	}
	dash := strings.LastIndexByte(token, '-')
	if dash < 10 || sepLen < 0 || int64(dash-10) < sepLen {
		return types.False
	}
	tsText := token[dash-10 : dash]
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return types.False
	}
	message := token[:int64(dash-10)-sepLen]
	macText := urlDecodeOnce(token[dash+1:], false)
	enc, raw := base64.StdEncoding, base64.RawStdEncoding
	if strings.Contains(flags, "s") {
		enc, raw = base64.URLEncoding, base64.RawURLEncoding
	}
	got, err := enc.DecodeString(macText)
	if err != nil {
		if got, err = raw.DecodeString(macText); err != nil {
			return types.False
		}
	}
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(message))
	m.Write([]byte(tsText))
	if !hmac.Equal(got, m.Sum(nil)) {
		return types.False
	}
	return types.Bool(now >= ts && now-ts <= ttl)
}

// implRegexReplace replaces every match; ${1} and $1 name capture groups.
func implRegexReplace(args ...ref.Val) ref.Val {
	re, err := compileRegex(str(args[1]))
	if err != nil {
		return types.NewErr("%v", err)
	}
	return types.String(re.ReplaceAllString(str(args[0]), str(args[2])))
}

func implToString(args ...ref.Val) ref.Val {
	switch v := args[0].(type) {
	case types.Int:
		return types.String(strconv.FormatInt(int64(v), 10))
	case types.Bool:
		return types.String(strconv.FormatBool(bool(v)))
	case ext.IP:
		return types.String(v.String())
	}
	return types.NoSuchOverloadErr()
}

// implWildcardReplace replaces a whole-value wildcard match with the
// replacement, where ${n} is the text the n-th * matched; flag "s" makes the
// match case-sensitive. A value that does not match is returned unchanged.
func implWildcardReplace(args ...ref.Val) ref.Val {
	s, pattern, repl := str(args[0]), str(args[1]), str(args[2])
	sensitive := len(args) > 3 && strings.Contains(str(args[3]), "s")
	re, err := wildcardRegex(pattern, sensitive)
	if err != nil {
		return types.NewErr("%v", err)
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return types.String(s)
	}
	return types.String(re.ExpandString(nil, repl, s, m))
}

// implUUIDv4 formats a version 4 UUID from the first 16 bytes of the seed
// (cf.random_seed), so that it is deterministic for a given seed.
func implUUIDv4(args ...ref.Val) ref.Val {
	var b [16]byte
	copy(b[:], str(args[0]))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.String(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		binary.BigEndian.Uint32(b[0:4]), b[4:6], b[6:8], b[8:10], b[10:16]))
}

func implWildcard(args ...ref.Val) ref.Val {
	return types.Bool(wildcardMatch(str(args[0]), str(args[1]), false))
}

func implStrictWildcard(args ...ref.Val) ref.Val {
	return types.Bool(wildcardMatch(str(args[0]), str(args[1]), true))
}

// wildcardMatch matches the whole value against a pattern where * is any run
// of bytes, \* a literal star and \\ a backslash. Without sensitive, ASCII
// letters match regardless of case. It runs in O(len(s)*len(p)) at worst,
// without building a regular expression.
func wildcardMatch(s, pattern string, sensitive bool) bool {
	p := wildcardTokens(pattern)
	eq := func(a, b byte) bool {
		if sensitive {
			return a == b
		}
		return lowerByte(a) == lowerByte(b)
	}
	var si, pi int
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] != starTok && eq(s[si], byte(p[pi])):
			si++
			pi++
		case pi < len(p) && p[pi] == starTok:
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == starTok {
		pi++
	}
	return pi == len(p)
}

const starTok = -1

// wildcardTokens turns a pattern into bytes, with starTok for each unescaped *.
func wildcardTokens(pattern string) []int {
	out := make([]int, 0, len(pattern))
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern) && (pattern[i+1] == '*' || pattern[i+1] == '\\'):
			out = append(out, int(pattern[i+1]))
			i++
		case c == '*':
			out = append(out, starTok)
		default:
			out = append(out, int(c))
		}
	}
	return out
}

// checkWildcard reports a pattern the engine rejects: a backslash that does
// not escape * or \.
func checkWildcard(pattern string) error {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '\\' {
			continue
		}
		if i+1 >= len(pattern) {
			return fmt.Errorf("wildcard pattern ends with a lone backslash; write \\\\ for a backslash")
		}
		if pattern[i+1] != '*' && pattern[i+1] != '\\' {
			return fmt.Errorf("wildcard pattern has the escape \\%c; only \\* and \\\\ are escapes", pattern[i+1])
		}
		i++
	}
	return nil
}

// wildcardRegex is the pattern as a regular expression with one group per *.
func wildcardRegex(pattern string, sensitive bool) (*regexp.Regexp, error) {
	var b strings.Builder
	if !sensitive {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for _, t := range wildcardTokens(pattern) {
		if t == starTok {
			b.WriteString("(.*?)")
		} else {
			b.WriteString(regexp.QuoteMeta(string(rune(t))))
		}
	}
	b.WriteString("$")
	return compileRegex(b.String())
}

var regexCache = &boundedCache{max: 4096}

// compileRegex compiles with a bounded process-wide cache.
func compileRegex(p string) (*regexp.Regexp, error) {
	re, err := regexCache.get(p, func() (any, error) { return regexp.Compile(p) })
	if err != nil {
		return nil, err
	}
	return re.(*regexp.Regexp), nil
}

func implBitwiseAnd(args ...ref.Val) ref.Val { return types.Bool(num(args[0])&num(args[1]) != 0) }

func implXor(args ...ref.Val) ref.Val {
	a, _ := args[0].(types.Bool)
	b, _ := args[1].(types.Bool)
	return types.Bool(a != b)
}

func implIP(args ...ref.Val) ref.Val {
	a, err := netip.ParseAddr(str(args[0]))
	if err != nil {
		return types.NewErr("invalid IP address %q", str(args[0]))
	}
	return ext.IP{Addr: a}
}

func ipCompare(ok func(int) bool) func(args ...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		return types.Bool(ok(addr(args[0]).Compare(addr(args[1]))))
	}
}

// implIndex is x[i] or m["k"], with zero for a missing element: the engine
// has no value there, and no comparison on a missing value matches except
// against the zero value, which is where the two differ.
func implIndex(args []ref.Val, zero ref.Val) ref.Val {
	switch c := args[0].(type) {
	case traits.Mapper:
		if v, found := c.Find(args[1]); found {
			return v
		}
		return zero
	case traits.Lister:
		i := num(args[1])
		if n := num(c.Size()); i >= 0 && i < n {
			return c.Get(types.Int(i))
		}
		return zero
	}
	return types.NoSuchOverloadErr()
}
