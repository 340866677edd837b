package repo

import (
	"slices"
	"sync"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo/code/golang"
)

// goPrefilter decides whether a Go file holding a needle is worth parsing: go/parser is
// most of what checking Go costs, and in an SDK's or a provider's source the needles
// ("settings", "filters") are everywhere as identifiers. In Go a path, a fragment or an
// expression is only ever in a string literal, and an SDK's names count only in a file
// importing it (import paths are literals too), so a Go file is parsed when one of its
// literals hold every word of a route or a field (needleWords), or when it imports an SDK
// whose needles it holds anywhere.
type goPrefilter struct {
	d    *codeDetector
	lits *setFinder
	// sdk holds per SDK of the table speaking Go the needles of its names, searched in the
	// whole file, and settings those of the setting ids its setting calls take, searched in
	// its literals (nil for the others).
	sdk, settings []*multiFinder
	// firsts are the first bytes of the Go SDKs' import paths: a literal starting with
	// another cannot be one.
	firsts [256]bool
}

func newGoPrefilter(d *codeDetector, cat *catalog.Catalog) *goPrefilter {
	routes, fields, settings := needleWords(cat)
	for _, f := range fields {
		routes = append(routes, []string{f})
	}
	n := len(d.table.SDKs)
	g := &goPrefilter{d: d, lits: newSetFinder(routes), sdk: make([]*multiFinder, n), settings: make([]*multiFinder, n)}
	for i := range d.table.SDKs {
		s := &d.table.SDKs[i]
		if !s.SpeaksFor("go") {
			continue
		}
		g.sdk[i] = newWordFinder(sdkWords(s, true))
		if len(s.SettingCalls) > 0 {
			g.settings[i] = newWordFinder(settings)
		}
		for _, imp := range s.Imports {
			if imp != "" {
				g.firsts[imp[0]] = true
			}
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
		buf = append(append(buf, in.lower[start:end]...), '\n')
		if end > start && g.firsts[in.data[start]] {
			for _, s := range g.d.sdksOfImport(string(in.data[start:end]), "go") {
				if !slices.Contains(sdks, s) {
					sdks = append(sdks, s)
				}
			}
		}
	})
	worth := g.lits.anyIn(buf)
	for i := range g.d.table.SDKs {
		if !worth && g.sdk[i] != nil && slices.Contains(sdks, &g.d.table.SDKs[i]) {
			worth = g.sdk[i].anyIn(in.lower) || (g.settings[i] != nil && g.settings[i].anyIn(buf))
		}
	}
	*bp = buf[:0]
	litPool.Put(bp)
	return worth
}
