package repo

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/vocab"

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
// Text patterns: every regular expression of the catalog's match.text is prefiltered by a
// literal it requires (requiredLiteral), searched once for all the patterns requiring it; the
// expression runs only on files holding the literal.
type textMatcher struct {
	routes  map[int][]textRoute
	anchors []finder
	// anchorGroups are the anchors by the byte their finders search (zones/ and
	// organizations/ by their z): one pass per byte.
	anchorGroups []byteGroup
	regexes      []textRegex
	// literals are the patterns' prefilter literals, each once.
	literals []finder
}

// textRegex is one catalog text pattern with its prefilter literal.
type textRegex struct {
	rule vocab.RuleID
	// re is the pattern compiled when a file first holds its literal: a pattern such as
	// transfer-encoding's (.{0,300}) takes milliseconds to compile in a process just started,
	// and most runs meet no file that needs it. nil if it does not compile.
	re func() *regexp.Regexp
	// literal indexes the literals (see requiredLiteral) one of which every match holds; -1
	// means no prefilter. Patterns sharing a literal share its search.
	literal int
}

// textRegex makes the pattern src of rule with its prefilter lit, adding lit to the literals
// unless a pattern before has it.
func (m *textMatcher) textRegex(rule vocab.RuleID, src string, lit finder) textRegex {
	r := textRegex{rule: rule, literal: -1, re: sync.OnceValue(func() *regexp.Regexp {
		re, err := regexp.Compile(src)
		if err != nil {
			return nil // catalog validation rejects these; a merged user catalog is validated too
		}
		return re
	})}
	if len(lit.lit) == 0 {
		return r
	}
	r.literal = slices.IndexFunc(m.literals, func(f finder) bool { return f.fold == lit.fold && bytes.Equal(f.lit, lit.lit) })
	if r.literal < 0 {
		r.literal = len(m.literals)
		m.literals = append(m.literals, lit)
	}
	return r
}

func newTextMatcher(cat *catalog.Catalog) *textMatcher {
	m := &textMatcher{routes: compileTextRoutes(cat)}
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
				m.anchors = append(m.anchors, newFinder([]byte(a)))
			}
		}
		for _, src := range e.Match.Text {
			if lit, ok := requiredLiteral(src); ok {
				m.regexes = append(m.regexes, m.textRegex(e.ID, src, lit))
			} // else catalog validation rejects it; a merged user catalog is validated too
		}
	}
	slices.SortFunc(m.anchors, func(a, b finder) int { return bytes.Compare(a.lit, b.lit) })
	m.anchorGroups = groupByByte(m.anchors)
	return m
}

func isPatternParam(s string) bool {
	return strings.HasPrefix(s, ":") || (strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"))
}

// requiredLiteral returns, of the literals every match of the expression contains, the one
// whose rarest byte is rarest (the longest of equals), found in any case when the expression
// ignores case there ((?i)), else as written: nil when none has three bytes or more. A file
// without it cannot match. False when the expression does not parse.
func requiredLiteral(src string) (finder, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return finder{}, false
	}
	best, bestFreq := finder{}, math.Inf(1)
	for _, l := range requiredLiterals(re.Simplify(), nil) {
		if len(l.Rune) == 0 || len(string(l.Rune)) < 3 {
			continue
		}
		f := newFinder([]byte(string(l.Rune)))
		if l.Flags&syntax.FoldCase != 0 {
			f = newFoldFinder(f.lit)
		}
		if _, freq := rarest(f.lit, f.fold); freq < bestFreq || freq == bestFreq && len(f.lit) > len(best.lit) {
			best, bestFreq = f, freq
		}
	}
	return best, true
}

// requiredLiterals appends to out the literal nodes every match of re holds.
func requiredLiterals(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		return append(out, re)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLiterals(re.Sub[0], out)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			out = requiredLiterals(s, out)
		}
	}
	return out
}

// lineIndex maps byte offsets to 1-based lines and columns; it is built lazily and only
// for files that have a hit.
type lineIndex struct {
	data   []byte
	starts []int
	// the last position answered, to resume counting columns from
	lastLine, lastOff, lastCol int
}

func newLineIndex(data []byte) *lineIndex { return &lineIndex{data: data, lastLine: -1} }

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

// pos returns the line and column (columns count characters) of offset off. Counting
// resumes from the previous answer on the same line, so many hits on one long line (a
// minified file) stay linear.
func (li *lineIndex) pos(off int) (line, col int) {
	li.build()
	i := sort.SearchInts(li.starts, off+1) - 1
	from, col := li.starts[i], 1
	if li.lastLine == i && li.lastOff <= off && li.lastOff >= from {
		from, col = li.lastOff, li.lastCol
	}
	col += utf8.RuneCount(li.data[from:off])
	li.lastLine, li.lastOff, li.lastCol = i, off, col
	return i + 1, col
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

// match finds every endpoint call and text pattern in data.
func (m *textMatcher) match(data []byte, li *lineIndex, add func(hit)) {
	m.endpoints(data, li, add)
	var known [16]int8 // per literal: 0 not searched yet, 1 found, -1 not found
	held := known[:0]
	if len(m.literals) > len(known) {
		held = make([]int8, 0, len(m.literals))
	}
	held = held[:len(m.literals)]
	for _, r := range m.regexes {
		if !m.holdsLiteral(data, r.literal, held) {
			continue
		}
		re := r.re()
		if re == nil {
			continue
		}
		for _, loc := range re.FindAllIndex(data, -1) {
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

// holdsLiteral reports whether data holds literal k (true for -1, no prefilter), searching
// each literal once per file: held[k] is 0 before, then 1 or -1.
func (m *textMatcher) holdsLiteral(data []byte, k int, held []int8) bool {
	if k < 0 {
		return true
	}
	if held[k] == 0 {
		held[k] = -1
		if m.literals[k].in(data) {
			held[k] = 1
		}
	}
	return held[k] > 0
}

// textRoute is one deprecated (not merely affected) endpoint, precompiled: literal segments,
// "" for a parameter.
type textRoute struct {
	rule    vocab.RuleID
	pattern string
	methods []string
	segs    []string
}

// compileTextRoutes groups the routes by segment count, so a path is compared only with
// routes of its length, without allocating.
func compileTextRoutes(cat *catalog.Catalog) map[int][]textRoute {
	out := map[int][]textRoute{}
	for _, e := range cat.Entries() {
		for _, ep := range e.Match.Endpoints {
			if ep.Affected {
				continue
			}
			segs := strings.Split(strings.Trim(ep.Path, "/"), "/")
			for i, sg := range segs {
				if isPatternParam(sg) {
					segs[i] = ""
				}
			}
			out[len(segs)] = append(out[len(segs)], textRoute{rule: e.ID, pattern: ep.Path, methods: ep.Methods, segs: segs})
		}
	}
	return out
}

// endpoints finds paths that match deprecated routes. Each anchor is searched from past the
// path read at its last occurrence.
func (m *textMatcher) endpoints(data []byte, li *lineIndex, add func(hit)) {
	var segs [][2]int
	var nextOf [8]int
	next := nextOf[:0]
	if len(m.anchors) > len(nextOf) {
		next = make([]int, 0, len(m.anchors))
	}
	next = next[:len(m.anchors)] // per anchor, where its next occurrence may start
	for _, g := range m.anchorGroups {
		g.scan(data, m.anchors, func(k, start int) bool {
			if start >= next[k] {
				next[k], segs = m.endpointAt(data, li, start, len(m.anchors[k].lit), segs, add)
			}
			return false
		})
	}
}

// endpointAt reads the path from an anchor at start and reports it when it matches
// deprecated routes; it returns where that anchor's next occurrence may start (past the
// path read), and segs to reuse.
func (m *textMatcher) endpointAt(data []byte, li *lineIndex, start, anchorLen int, segs [][2]int, add func(hit)) (int, [][2]int) {
	next := start + anchorLen
	if start > 0 && isWordByte(data[start-1]) || nestedSegment(data, start) {
		return next, segs // "dns_zones/", "myzones/", "access/organizations/": not the route's start
	}
	end, segs := readPath(data, start, segs[:0])
	if len(segs) < 2 {
		return next, segs
	}
	var matched []*textRoute
	for i := range m.routes[len(segs)] {
		if r := &m.routes[len(segs)][i]; routeMatches(r.segs, data, segs) {
			matched = append(matched, r)
		}
	}
	if len(matched) > 0 {
		m.endpointHit(data, li, start, end, matched, add)
	}
	return max(next, end), segs
}

// nestedSegment reports whether the anchor at start follows a plain word segment
// ("accounts/x/access/organizations/..."): then it names a resource nested in another
// route, not the start of a deprecated one. After "v4" (the base path), a host, a
// placeholder or nothing, it is a route's start.
func nestedSegment(data []byte, start int) bool {
	if start < 2 || data[start-1] != '/' {
		return false
	}
	i := start - 1
	for i > 0 && (isWordByte(data[i-1]) && data[i-1] != '.') {
		i--
	}
	word := data[i : start-1]
	if len(word) == 0 || string(word) == "v4" || (i > 0 && data[i-1] != '/') {
		return false
	}
	for _, c := range word {
		if c >= 'A' && c <= 'Z' {
			return false // $API, ZONE: a variable, not a segment
		}
	}
	return true
}

func routeMatches(pattern []string, data []byte, segs [][2]int) bool {
	for i, p := range pattern {
		if p != "" && string(data[segs[i][0]:segs[i][1]]) != p {
			return false
		}
	}
	return true
}

func (m *textMatcher) endpointHit(data []byte, li *lineIndex, start, end int, routes []*textRoute, add func(hit)) {
	line, col := li.pos(start)
	method := methodNear(data, li, line, start)
	path := "/" + string(data[start:end])
	reported := map[string]bool{}
	for _, r := range routes {
		if reported[string(r.rule)] || (method != "" && !slices.Contains(r.methods, method)) {
			continue
		}
		reported[string(r.rule)] = true
		shown := method
		if shown == "" {
			shown = strings.Join(r.methods, "|")
		}
		_, ecol := li.pos(end)
		add(hit{
			rule:    r.rule,
			kind:    "endpoint",
			id:      shown + " " + r.pattern,
			name:    path,
			address: "endpoint " + method + " " + r.pattern + " " + path,
			msg:     "calls " + shown + " " + r.pattern + " (" + clip(string(data[start:end]), 120) + ")",
			loc:     scanner.Location{StartLine: line, StartColumn: col, EndLine: line, EndColumn: ecol},
		})
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// readPath reads a path starting at data[start] and returns its end offset and the bounds
// of its segments (appended to segs). It stops at the first character that cannot be part
// of a path (space, quote, '?', '#', ')', ',' ...).
func readPath(data []byte, start int, segs [][2]int) (int, [][2]int) {
	i := start
	for i < len(data) {
		segEnd := readSegment(data, i)
		if segEnd == i {
			break
		}
		segs = append(segs, [2]int{i, segEnd})
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
		if !isWordByte(c) && c != ' ' {
			return false
		}
	}
	return true
}

// methodWindow bounds how far from a path its method is looked for, in bytes.
const methodWindow = 400

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
	// Only the neighbourhood of the path counts: a minified file is one long line, and
	// scanning all of it for every path would be quadratic.
	s, e = max(s, off-methodWindow), min(e, off+methodWindow)
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
