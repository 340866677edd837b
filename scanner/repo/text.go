package repo

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// textMatcher finds deprecated endpoint calls and the catalog's text patterns in any file.
//
// Endpoints: the first literal segment of every deprecated route ("zones", "accounts",
// "organizations", "user") is an anchor; the file is searched for "<anchor>/" with
// bytes.Index (no regular expression runs over the whole file), and at each hit that starts a
// word a path is read (segments of letters, digits and placeholder forms such as :zone_id,
// {zone_id}, ${ZONE_ID}, $ZONE_ID, %s, <zone_id>, {{ .Zone }}) and matched against the
// catalog's routes, where any concrete segment matches a route parameter. So a finding needs
// a full path shape, never a bare word. Routes marked affected (they stay and only carry a
// deprecated part in their payload) are not reported from text.
//
// Text patterns: every regular expression of the catalog's match.text is prefiltered by the
// longest literal it requires (case-folded when the pattern is), found with bytes.Index in a
// lowercase copy of the file; the expression runs only on files holding the literal.
type textMatcher struct {
	cat     *catalog.Catalog
	anchors [][]byte
	regexes []textRegex
}

// textRegex is one compiled catalog text pattern with its prefilter literal.
type textRegex struct {
	rule    string
	re      *regexp.Regexp
	literal []byte // lowercase; empty means no prefilter
}

func newTextMatcher(cat *catalog.Catalog) *textMatcher {
	m := &textMatcher{cat: cat}
	seen := map[string]bool{}
	for _, e := range cat.Entries() {
		for _, ep := range e.Match.Endpoints {
			if ep.Affected {
				continue
			}
			segs := strings.Split(strings.Trim(ep.Path, "/"), "/")
			if len(segs) == 0 || segs[0] == "" || isPatternParam(segs[0]) {
				continue
			}
			if a := segs[0] + "/"; !seen[a] {
				seen[a] = true
				m.anchors = append(m.anchors, []byte(a))
			}
		}
		for _, src := range e.Match.Text {
			re, err := regexp.Compile(src)
			if err != nil {
				continue // catalog validation rejects these; a merged user catalog is validated too
			}
			m.regexes = append(m.regexes, textRegex{rule: e.ID, re: re, literal: requiredLiteral(src)})
		}
	}
	slices.SortFunc(m.anchors, bytes.Compare)
	return m
}

func isPatternParam(s string) bool {
	return strings.HasPrefix(s, ":") || (strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"))
}

// requiredLiteral returns the longest literal every match of the expression contains,
// lowercased, or nil when there is none worth filtering on.
func requiredLiteral(src string) []byte {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	lit := longestLiteral(re.Simplify())
	if len(lit) < 3 {
		return nil
	}
	return []byte(strings.ToLower(lit))
}

func longestLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune)
	case syntax.OpCapture:
		return longestLiteral(re.Sub[0])
	case syntax.OpPlus:
		return longestLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return longestLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, s := range re.Sub {
			if l := longestLiteral(s); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// lineIndex maps byte offsets to 1-based lines and columns; it is built lazily and only
// for files that have a hit.
type lineIndex struct {
	data   []byte
	starts []int
}

func newLineIndex(data []byte) *lineIndex { return &lineIndex{data: data} }

func (li *lineIndex) build() {
	if li.starts != nil {
		return
	}
	li.starts = make([]int, 1, 64)
	for i := 0; ; {
		j := bytes.IndexByte(li.data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		li.starts = append(li.starts, i)
	}
}

// pos returns the line and column (columns count characters) of offset off.
func (li *lineIndex) pos(off int) (line, col int) {
	li.build()
	i := sort.SearchInts(li.starts, off+1) - 1
	return i + 1, utf8.RuneCount(li.data[li.starts[i]:off]) + 1
}

// lineBounds returns the byte range of 1-based line n, without its newline.
func (li *lineIndex) lineBounds(n int) (int, int) {
	li.build()
	if n < 1 || n > len(li.starts) {
		return 0, 0
	}
	start := li.starts[n-1]
	end := len(li.data)
	if n < len(li.starts) {
		end = li.starts[n] - 1
	}
	return start, end
}

func (li *lineIndex) lines() int { li.build(); return len(li.starts) }

// match finds every endpoint call and text pattern in data. lower is data lowercased (the
// caller owns the buffer).
func (m *textMatcher) match(data, lower []byte, li *lineIndex, add func(hit)) {
	m.endpoints(data, li, add)
	for _, r := range m.regexes {
		if len(r.literal) > 0 && !bytes.Contains(lower, r.literal) {
			continue
		}
		for _, loc := range r.re.FindAllIndex(data, -1) {
			if loc[1] == loc[0] {
				continue
			}
			text := string(data[loc[0]:loc[1]])
			sl, sc := li.pos(loc[0])
			el, ec := li.pos(loc[1])
			add(hit{
				rule:    r.rule,
				kind:    "text",
				address: "text " + normalizeSpace(text),
				name:    clip(normalizeSpace(text), 80),
				msg:     "matches " + clip(normalizeSpace(text), 120),
				loc:     scanner.Location{StartLine: sl, StartColumn: sc, EndLine: el, EndColumn: ec},
			})
		}
	}
}

// endpoints finds paths that match deprecated routes.
func (m *textMatcher) endpoints(data []byte, li *lineIndex, add func(hit)) {
	for _, a := range m.anchors {
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], a)
			if i < 0 {
				break
			}
			start := off + i
			off = start + len(a)
			if start > 0 && isWordByte(data[start-1]) {
				continue // "dns_zones/", "myzones/": not a path segment
			}
			end, segs := readPath(data, start)
			if len(segs) < 2 {
				continue
			}
			m.endpointHit(data, li, start, end, segs, add)
			off = max(off, end)
		}
	}
}

func (m *textMatcher) endpointHit(data []byte, li *lineIndex, start, end int, segs []string, add func(hit)) {
	path := "/" + strings.Join(segs, "/")
	line, col := li.pos(start)
	method := methodNear(data, li, line, start)
	rms := m.cat.MatchRoute(method, path)
	if len(rms) == 0 && method != "" {
		return
	}
	reported := map[string]bool{}
	for _, rm := range rms {
		if rm.Endpoint.Affected || reported[rm.Entry.ID] {
			continue
		}
		reported[rm.Entry.ID] = true
		shown := method
		if shown == "" {
			shown = strings.Join(rm.Endpoint.Methods, "|")
		}
		_, ecol := li.pos(end)
		add(hit{
			rule:    rm.Entry.ID,
			kind:    "endpoint",
			id:      shown + " " + rm.Endpoint.Path,
			name:    path,
			address: "endpoint " + method + " " + rm.Endpoint.Path + " " + path,
			msg:     "calls " + shown + " " + rm.Endpoint.Path + " (" + clip(string(data[start:end]), 120) + ")",
			loc:     scanner.Location{StartLine: line, StartColumn: col, EndLine: line, EndColumn: ecol},
		})
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// readPath reads a path starting at data[start] and returns its end offset and segments.
// It stops at the first character that cannot be part of a path (space, quote, '?', '#',
// ')', ',' ...).
func readPath(data []byte, start int) (int, []string) {
	var segs []string
	i := start
	for i < len(data) {
		segEnd := readSegment(data, i)
		if segEnd == i {
			break
		}
		segs = append(segs, string(data[i:segEnd]))
		i = segEnd
		if i < len(data) && data[i] == '/' {
			i++
			continue
		}
		break
	}
	end := i
	if end > start && data[end-1] == '/' {
		end--
	}
	return end, segs
}

// readSegment reads one path segment, including placeholders with braces.
func readSegment(data []byte, i int) int {
	start := i
	for i < len(data) {
		c := data[i]
		switch {
		case c == '{' || (c == '$' && i+1 < len(data) && data[i+1] == '{'):
			// {x}, ${x}, {{ .X }}: up to the matching close, on one line, at most 64 bytes.
			j := closeBrace(data, i)
			if j < 0 {
				return i
			}
			i = j
		case c == '<':
			j := bytes.IndexByte(data[i:min(len(data), i+48)], '>')
			if j < 0 || !placeholderName(data[i+1:i+j]) {
				return i
			}
			i += j + 1
		case isWordByte(c) || c == ':' || c == '%' || c == '$' || c == '@' || c == '~' || c == '[' || c == ']':
			i++
		default:
			if i == start {
				return i
			}
			return i
		}
	}
	return i
}

func closeBrace(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data) && j < i+64; j++ {
		switch data[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\n':
			return -1
		}
	}
	return -1
}

func placeholderName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(isWordByte(c) || c == ' ') {
			return false
		}
	}
	return true
}

// methods are the HTTP methods the catalog uses.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// methodNear finds the HTTP method of the call holding the path at offset off: on the
// logical line (physical lines joined by trailing backslashes, as in multi-line curl
// commands), the method token closest to the path: an upper-case method word (curl -X POST,
// "POST /zones/...", method: "POST"), a client call (requests.post(, axios.patch(,
// http.MethodDelete) or a lower-case quoted method ('post'). "" when none is written.
func methodNear(data []byte, li *lineIndex, line, off int) string {
	first, last := line, line
	for first > 1 && first > line-10 {
		s, e := li.lineBounds(first - 1)
		if !bytes.HasSuffix(bytes.TrimRight(data[s:e], " \t\r"), []byte{'\\'}) {
			break
		}
		first--
	}
	for last < li.lines() && last < line+10 {
		s, e := li.lineBounds(last)
		if !bytes.HasSuffix(bytes.TrimRight(data[s:e], " \t\r"), []byte{'\\'}) {
			break
		}
		last++
	}
	s, _ := li.lineBounds(first)
	_, e := li.lineBounds(last)
	best, bestDist := "", -1
	seg := data[s:e]
	for i := 0; i < len(seg); i++ {
		m, n := methodAt(seg, i)
		if m == "" {
			continue
		}
		d := abs(s + i - off)
		if s+i > off {
			d += 1 << 20 // a method before the path wins over one after it
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = m, d
		}
		i += n - 1
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// methodAt recognises a method token at seg[i] and returns it with its length.
func methodAt(seg []byte, i int) (string, int) {
	if i > 0 && (isWordByte(seg[i-1]) && seg[i-1] != '.') {
		return "", 0
	}
	rest := seg[i:]
	for _, m := range methods {
		if len(rest) < len(m) {
			continue
		}
		w := rest[:len(m)]
		after := byte(' ')
		if len(rest) > len(m) {
			after = rest[len(m)]
		}
		if isWordByte(after) && after != '-' {
			continue
		}
		switch {
		case string(w) == m:
			return m, len(m)
		case bytes.EqualFold(w, []byte(m)) && (after == '(' || (i > 0 && (seg[i-1] == '\'' || seg[i-1] == '"' || seg[i-1] == '.'))):
			// requests.post(, axios.patch(, 'post', "delete"
			return m, len(m)
		}
	}
	if bytes.HasPrefix(rest, []byte("Method")) {
		for _, m := range methods {
			name := m[:1] + strings.ToLower(m[1:])
			if bytes.HasPrefix(rest[6:], []byte(name)) {
				return m, 6 + len(name)
			}
		}
	}
	return "", 0
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
