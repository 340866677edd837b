package repo

import (
	"bytes"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// codeReaders turn a file of each program language into the language-neutral code.File;
// code_readers.go registers one per language subpackage of scanner/repo/code.
var codeReaders = map[Kind]func([]byte) *code.File{}

// codeDetector reads program source through code.File: API paths the code builds (whole,
// or fragments relative to a base the code keeps elsewhere), SDK calls and resource types
// (sdks.yaml), zone setting ids handed to SDK setting calls, and Rules language expressions
// in string values. It matches paths through the catalog's route matcher (MatchBuilt,
// MatchLiterals), never by its own.
type codeDetector struct {
	cat      *catalog.Catalog
	table    *catalog.CodeTable
	exprs    *exprRules
	settings map[string]vocab.RuleID // deprecated zone setting id -> rule
	// needles are lowercase words one of which a file must hold to be read at all: the
	// literal segments of deprecated routes, SDK names, expression fields (see newNeedles).
	needles *multiFinder
	// goNeedles are the needles of a Go file, by where it holds them.
	goNeedles *goPrefilter
	// scopes are the first literal segments of the catalog's routes ("zones", "accounts").
	scopes map[string]bool
}

func newCodeDetector(cat *catalog.Catalog, exprs *exprRules) *codeDetector {
	d := &codeDetector{cat: cat, table: catalog.DefaultCode(), exprs: exprs, settings: map[string]vocab.RuleID{}, scopes: map[string]bool{}}
	for _, e := range cat.Entries() {
		for _, s := range e.Match.Settings {
			d.settings[s] = e.ID
		}
		for _, ep := range e.Match.Endpoints {
			if segs := strings.Split(strings.Trim(ep.Path, "/"), "/"); len(segs) > 1 {
				d.scopes[segs[0]] = true
			}
		}
	}
	d.needles = newNeedles(cat, d.table)
	d.goNeedles = newGoPrefilter(d, cat)
	return d
}

func (d *codeDetector) reads(k Kind) bool { _, ok := codeReaders[k]; return ok }

func (d *codeDetector) check(c *Checker, in *input, add func(hit)) []span {
	if !d.worthReading(in) {
		return nil
	}
	release, pe := c.structure(in.kind, in.data)
	if pe != nil {
		add(parseHit(in.kind, pe))
		return nil
	}
	defer release()
	d.read(c, in, add)
	return nil
}

// read reads the file as code and adds what it finds; a file its reader did not follow to
// the end (nesting past the reader's bound) is also a parse hit that makes the run
// incomplete.
func (d *codeDetector) read(c *Checker, in *input, add func(hit)) {
	f := codeReaders[in.kind](in.data)
	if f.Unread != "" {
		add(parseHit(in.kind, &parseError{Line: max(f.UnreadAt.Line, 1), Col: max(f.UnreadAt.Col, 1), Msg: f.Unread, Limit: true}))
	}
	cx := d.context(in, f)
	d.paths(cx, add)
	d.sdkCalls(cx, add)
	d.settingHelpers(cx, add)
	if cx.settingCalls {
		d.settingStrings(cx, add)
	}
	d.expressions(c, cx, add)
	d.srvRecords(cx, add)
}

// newNeedles gathers the words a file must hold one of to be worth reading: per deprecated
// route its longest word (needleWords), the expression fields, and those of every SDK
// (sdkWords, and the setting ids when it has setting calls); only those no shorter one is
// part of are kept ("settings" makes "zonesettingsoverride" redundant).
func newNeedles(cat *catalog.Catalog, table *catalog.CodeTable) *multiFinder {
	routes, fields, settings := needleWords(cat)
	var lits []string
	for _, r := range routes {
		lits = append(lits, longestWord(r.words))
	}
	lits = append(lits, fields...)
	for i := range table.SDKs {
		lits = append(lits, sdkWords(&table.SDKs[i], false)...)
	}
	// A setting call, an SDK's or a helper of the project's own, finds nothing but these.
	lits = append(lits, settings...)
	return newWordFinder(lits)
}

// needleWords are what a file's own strings must hold to be worth reading: all the words of
// one of routes, per deprecated route its literal segments but the scope (a path, a tail
// or an attribute chain of the route spells all of them), or one of fields, the deprecated
// expression fields less their last part, and "srv" (an SRV record built in code,
// srvRecords) while its data fields are deprecated; settings are the deprecated zone setting
// ids, which count only in a file handing them to a setting call (an SDK's, or a helper of
// its own: settingHelpers). All lowercase.
func needleWords(cat *catalog.Catalog) (routes []routeNeedle, fields, settings []string) {
	shared := sharedScopes(cat)
	for _, e := range cat.Entries() {
		for _, ep := range e.Match.Endpoints {
			if !ep.Affected {
				segs := strings.Split(strings.Trim(ep.Path, "/"), "/")
				routes = append(routes, routeNeedle{words: routeWords(ep.Path, shared), endsLiteral: !isPatternParam(segs[len(segs)-1])})
			}
		}
		for _, f := range e.Match.ExpressionFields {
			if i := strings.LastIndexByte(f, '.'); strings.Count(f, ".") >= 2 {
				f = f[:i]
			}
			fields = append(fields, strings.ToLower(f))
		}
		for _, s := range e.Match.Settings {
			settings = append(settings, strings.ToLower(s))
		}
	}
	if _, ok := cat.Lookup(vocab.SRVDataFields); ok {
		fields = append(fields, "srv")
	}
	return routes, fields, settings
}

// sdkWords are the words of an SDK's calls, services and types, one of which a file using
// them holds: per name its longest part, or with chains the whole name, a service followed
// by the dot before its method ("firewall.rules."), as a language that writes names the way
// sdks.yaml does (Go) spells the call.
func sdkWords(s *catalog.SDK, chains bool) []string {
	var out []string
	add := func(names map[vocab.RuleID][]string, suffix string) {
		for _, ns := range names {
			for _, n := range ns {
				if w := normName(n); chains {
					out = append(out, w+suffix)
				} else {
					out = append(out, longestWord(strings.Split(w, ".")))
				}
			}
		}
	}
	add(s.Calls, "")
	add(s.Services, ".")
	add(s.Types, "")
	return out
}

// newWordFinder finds any of words (lowercase), keeping only those no shorter one is part of
// ("settings" makes "zonesettingsoverride" redundant).
func newWordFinder(words []string) *multiFinder {
	all := slices.Clone(words)
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > 0 && all[0] == "" {
		all = all[1:]
	}
	var out [][]byte
	for _, w := range all {
		if !slices.ContainsFunc(all, func(o string) bool { return o != w && strings.Contains(w, o) }) {
			out = append(out, []byte(w))
		}
	}
	return newMultiFinder(out)
}

// routeNeedle is a deprecated route's words (routeWords); endsLiteral says that its last
// segment is its last word, not a parameter: a path of the route ends with it.
type routeNeedle struct {
	words       []string
	endsLiteral bool
}

// routeWords are a route's literal segments, lowercased, less a first one that routes of
// several entries share (zones, accounts: every file calling the API has them).
func routeWords(path string, shared map[string]bool) []string {
	var lits []string
	for _, s := range strings.Split(strings.Trim(path, "/"), "/") {
		if !isPatternParam(s) {
			lits = append(lits, strings.ToLower(s))
		}
	}
	if len(lits) > 1 && shared[lits[0]] {
		return lits[1:]
	}
	return lits
}

// sharedScopes are the first literal segments of routes of more than one entry.
func sharedScopes(cat *catalog.Catalog) map[string]bool {
	owner := map[string]vocab.RuleID{}
	shared := map[string]bool{}
	for _, e := range cat.Entries() {
		for _, ep := range e.Match.Endpoints {
			first := strings.SplitN(strings.Trim(ep.Path, "/"), "/", 2)[0]
			if o, ok := owner[first]; ok && o != e.ID {
				shared[first] = true
			}
			owner[first] = e.ID
		}
	}
	return shared
}

// longestWord returns the longest of words (the first of equals).
func longestWord(words []string) string {
	best := ""
	for _, w := range words {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// worthReading is the prefilter: a file holding none of the needles cannot produce a finding
// of this detector, and is not read as code; nor can a Go file without them where they
// count (goPrefilter, which implies the needles).
func (d *codeDetector) worthReading(in *input) bool {
	if in.kind == KindGo {
		return d.goNeedles.worthReading(in)
	}
	return d.needles.anyIn(in.data)
}

// codeContext is one file under the code detector: its code.File and what it says about
// the API.
type codeContext struct {
	in *input
	f  *code.File
	// sdks are the SDKs the file imports (the longest import match wins) that speak its
	// language.
	sdks []*catalog.SDK
	// talksToAPI is the file-level evidence a path fragment needs (see README "Evidence").
	talksToAPI bool
	// byCall lists, per call index, the indices of the strings passed to it.
	byCall map[int][]int
	// routes memoizes catalog.MatchBuilt by path (files repeat their paths).
	routes map[string][]catalog.RouteMatch
	// lastAt is the line each rule and route was last reported at: a value assigned on one
	// line and folded into the call on the next is one use, reported once.
	lastAt map[string]int
	// settingCalls: the file hands zone setting ids to an SDK, or sends settings it names
	// through the per-setting path (zones/<id>/settings/<name>) or the bulk settings
	// endpoint: its strings that are a deprecated setting id count (see settingStrings).
	settingCalls bool
	// settingCall marks the calls whose arguments settingArgs reported.
	settingCall map[int]bool
}

func (d *codeDetector) context(in *input, f *code.File) *codeContext {
	cx := &codeContext{in: in, f: f, byCall: map[int][]int{}, routes: map[string][]catalog.RouteMatch{}, lastAt: map[string]int{}, settingCall: map[int]bool{}}
	for i, s := range f.Strings {
		if s.Call >= 0 {
			cx.byCall[s.Call] = append(cx.byCall[s.Call], i)
		}
	}
	cx.sdks = d.importedSDKs(f)
	cx.talksToAPI = len(cx.sdks) > 0 || d.mentionsAPI(in.lowered(), f) || helperTalksToAPI(f)
	return cx
}

// importedSDKs returns the SDKs of the file's imports that speak its language; for each
// import only the SDKs of the longest matching import string count.
func (d *codeDetector) importedSDKs(f *code.File) []*catalog.SDK {
	var out []*catalog.SDK
	for _, imp := range f.Imports {
		for _, s := range d.sdksOfImport(imp, f.Lang) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// sdksOfImport returns the SDKs speaking lang whose import imp is, those of the longest
// matching import string only.
func (d *codeDetector) sdksOfImport(imp, lang string) []*catalog.SDK {
	best, picked := 0, []*catalog.SDK(nil)
	for i := range d.table.SDKs {
		s := &d.table.SDKs[i]
		if !s.SpeaksFor(lang) {
			continue
		}
		switch n := s.ImportMatch(imp); {
		case n > best:
			best, picked = n, []*catalog.SDK{s}
		case n == best && n > 0:
			picked = append(picked, s)
		}
	}
	return picked
}

// mentionsAPI is the rest of the file-level evidence: the API's host or base path in the
// file, or a module, package or namespace named after the provider.
func (d *codeDetector) mentionsAPI(lower []byte, f *code.File) bool {
	api := d.table.API
	for _, h := range api.Hosts {
		if bytes.Contains(lower, []byte(strings.ToLower(h))) {
			return true
		}
	}
	if api.BasePath != "" && bytes.Contains(lower, []byte(strings.ToLower(api.BasePath))) {
		return true
	}
	word := strings.ToLower(api.NamespaceWord)
	for _, imp := range f.Imports {
		if word != "" && strings.Contains(strings.ToLower(imp), word) {
			return true
		}
	}
	return false
}

// normName folds a name for comparison across naming conventions: rate_limits, rateLimits
// and RateLimits are one name.
func normName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// httpMethods are the HTTP methods a call name or argument can name.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// methodName returns the HTTP method s names, "" when none: "post" and "Post" count only
// when loose (a call's name or a method: key), "POST" always, Go's http.MethodPost always.
func methodName(s string, loose bool) string {
	if m, ok := strings.CutPrefix(s, "Method"); ok && slices.Contains(httpMethods, strings.ToUpper(m)) && m != strings.ToUpper(m) {
		return strings.ToUpper(m)
	}
	if slices.Contains(httpMethods, s) || (loose && slices.Contains(httpMethods, strings.ToUpper(s))) {
		return strings.ToUpper(s)
	}
	return ""
}
