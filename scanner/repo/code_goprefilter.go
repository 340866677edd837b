package repo

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo/code/golang"
)

// goPrefilter decides whether a Go file holding a needle is worth parsing: go/parser is
// most of what checking Go costs, and in an SDK's or a provider's source the needles
// ("settings", "filters") are everywhere as identifiers. In Go a path, a fragment, an
// expression or a setting id is only ever in a string literal, and an SDK's names count only
// in a file importing it (import paths are literals too), so a Go file is parsed when its
// literals hold every literal segment of a route, each as a whole segment (newRouteFinder),
// or a deprecated field (needleWords), or a literal that is a deprecated setting id as written
// or SRV in a file with a member named type (goWord), or when it imports an SDK whose names it
// holds anywhere.
type goPrefilter struct {
	d *codeDetector
	// routes finds the words of a route, each a whole segment of a path in a literal; words
	// the deprecated expression fields, zone setting ids and srv, each of which counts alone
	// where wordKinds says.
	routes    *setFinder
	words     *multiFinder
	wordKinds []goWord
	// sdk holds per SDK of the table speaking Go the needles of its names, searched in the
	// whole file (nil for the others).
	sdk []*multiFinder
	// imports are the Go SDKs' import paths: only a literal starting with one can import
	// an SDK.
	imports [][]byte
}

// goWord is where a word of goPrefilter.words counts.
type goWord struct {
	lit []byte
	// whole: only as a whole literal, as written (a setting id, which counts only as a
	// string that is exactly the id: settingStrings, settingArgs); srv: a whole literal in
	// any case, in a file with a member named type (srvRecords); else anywhere in a literal.
	whole, srv bool
}

func newGoPrefilter(d *codeDetector, cat *catalog.Catalog) *goPrefilter {
	routes, fields, settings := needleWords(cat)
	n := len(d.table.SDKs)
	g := &goPrefilter{d: d, routes: newRouteFinder(routes), sdk: make([]*multiFinder, n)}
	var lits [][]byte
	add := func(w goWord) {
		if !slices.ContainsFunc(g.wordKinds, func(o goWord) bool { return o.whole == w.whole && bytes.Equal(o.lit, w.lit) }) {
			g.wordKinds = append(g.wordKinds, w)
			lits = append(lits, w.lit)
		}
	}
	for _, f := range fields {
		add(goWord{lit: []byte(f), srv: f == "srv"})
	}
	for _, s := range settings {
		add(goWord{lit: []byte(s), whole: true})
	}
	g.words = newMultiFinder(lits)
	for i := range d.table.SDKs {
		s := &d.table.SDKs[i]
		if !s.SpeaksFor("go") {
			continue
		}
		g.sdk[i] = newWordFinder(sdkWords(s, true))
		for _, imp := range s.Imports {
			g.imports = append(g.imports, []byte(imp))
		}
	}
	return g
}

// litPool recycles the buffers a Go file's literals are gathered into.
var litPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// worthReading reports whether the Go file in may produce a finding of the code detector.
func (g *goPrefilter) worthReading(in *input) bool {
	bp := litPool.Get().(*[]byte)
	buf := (*bp)[:0]
	var sdks []*catalog.SDK
	golang.Literals(in.data, func(start, end int) {
		buf = append(append(buf, in.data[start:end]...), '\n') // the finders fold case
		if g.mayImport(in.data[start:end]) {
			for _, s := range g.d.sdksOfImport(string(in.data[start:end]), "go") {
				if !slices.Contains(sdks, s) {
					sdks = append(sdks, s)
				}
			}
		}
	})
	worth := g.routes.anyIn(buf) || g.wordIn(buf, in.data)
	for i := range g.d.table.SDKs {
		if !worth && g.sdk[i] != nil && slices.Contains(sdks, &g.d.table.SDKs[i]) {
			worth = g.sdk[i].anyIn(in.data)
		}
	}
	*bp = buf[:0]
	litPool.Put(bp)
	return worth
}

// wordIn reports whether the literals gathered one a line hold one of the words where it
// counts (goWord); src is the file.
func (g *goPrefilter) wordIn(lits, src []byte) bool {
	srvTried := false
	return g.words.scan(lits, func(id, at int) bool {
		w := &g.wordKinds[id]
		end := at + len(w.lit)
		whole := (at == 0 || lits[at-1] == '\n') && end < len(lits) && lits[end] == '\n'
		switch {
		case w.whole:
			return whole && bytes.Equal(lits[at:end], w.lit)
		case w.srv:
			if !whole || srvTried {
				return false
			}
			srvTried = true
			return hasTypeMember(src)
		}
		return true
	})
}

// typeFinder finds the name of an SRV record's type member.
var typeFinder = newFoldFinder([]byte("type"))

// hasTypeMember reports whether the Go source src may set a composite literal member named
// type (in any case, underscores aside, as normName compares: Type, "type", TYPE): a name,
// identifier or string, followed by a colon, with blanks or /* */ comments between (a line
// break there is no Go).
func hasTypeMember(src []byte) bool {
	for off := 0; ; {
		at := typeFinder.index(src, off)
		if at < 0 {
			return false
		}
		off = at + 1
		start, end := at, at+4
		for start > 0 && identByte(src[start-1]) {
			start--
		}
		for end < len(src) && identByte(src[end]) {
			end++
		}
		if !sameName(string(src[start:end]), "type") {
			continue
		}
		if end < len(src) && (src[end] == '"' || src[end] == '`') {
			end++
		}
		if end = skipBlanks(src, end); end < len(src) && src[end] == ':' {
			return true
		}
	}
}

// identByte reports whether c may be part of a Go identifier (any byte of a UTF-8 letter).
func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}

// skipBlanks returns the offset of the first byte at or after i that is neither a space,
// a tab nor inside a /* */ comment.
func skipBlanks(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t':
			i++
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return len(src)
			}
			i += 2 + j + 2
		default:
			return i
		}
	}
	return i
}

// mayImport reports whether lit starts with an SDK's import path.
func (g *goPrefilter) mayImport(lit []byte) bool {
	for _, imp := range g.imports {
		if bytes.HasPrefix(lit, imp) {
			return true
		}
	}
	return false
}

// newRouteFinder finds the words of a route in literals gathered one a line, each a whole
// path segment (wholeSegment), and the last word of a route ending with it where a path
// ends (pathEnd).
func newRouteFinder(routes []routeNeedle) *setFinder {
	sets := make([][]string, len(routes))
	for i, r := range routes {
		sets[i] = slices.Clone(r.words)
		if r.endsLiteral {
			sets[i][len(r.words)-1] += lastWord
		}
	}
	return newSetFinder(sets, func(data []byte, at, end int, word string) bool {
		return wholeSegment(data, at, end) && (!strings.HasSuffix(word, lastWord) || pathEnd(data, end))
	})
}

// lastWord tags a route's last word in newRouteFinder's sets (see setFinder).
const lastWord = "\x00"

// wholeSegment reports whether data[at:end], found in the literals gathered one a line, is a
// whole path segment: at the start of its literal or after a slash, and at its end or
// before a byte no segment holds. Only so can a path the literal is part of have it as a
// segment: one holding more, a format verb or a placeholder ("%ssettings", `json:"settings"`,
// "zone_settings", "settings-x") is another segment, or a route parameter.
func wholeSegment(data []byte, at, end int) bool {
	if at > 0 && data[at-1] != '\n' && data[at-1] != '/' {
		return false
	}
	return end == len(data) || !segmentByte[data[end]]
}

// pathEnd reports whether a path can end at data[end] (the byte after a segment): the end of
// its literal (a concatenation may add a query, or nothing), a slash ending it, or a byte
// that is not a slash ("settings?page=2", "settings HTTP/1.1"). A segment followed by
// another ("/settings/ssl") is not the last of a route ending with it.
func pathEnd(data []byte, end int) bool {
	switch {
	case end == len(data) || data[end] == '\n':
		return true
	case data[end] == '/':
		return end+1 == len(data) || data[end+1] == '\n'
	}
	return true
}

// segmentByte marks the bytes that continue a path segment, or start a hole in it.
var segmentByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 || strings.IndexByte("_-%{$", byte(c)) >= 0
	}
	return t
}()
