package repo

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// Rule ids of the checks that belong to sunset itself rather than to the catalog. They take
// part in suppressions, severity overrides and baselines like catalog ids.
const (
	// RuleSuppression reports a problem with an inline suppression: no reason given, expired
	// (until= is past the as-of date), or naming no known rule. Severity notice.
	RuleSuppression = "sunset-suppression"
	// RuleExpression reports a filter or rule expression that does not parse or type-check
	// (warning: the migration cannot carry it as it is), or that holds template
	// interpolation and so cannot be checked (notice).
	RuleExpression = "sunset-expression"
	// RuleParse reports a Terraform, JSON or YAML file that does not parse: its structured
	// checks were skipped (text checks still ran). Severity notice.
	RuleParse = "sunset-parse"
)

// toolRules describes the tool's own rules for findings and reports.
var toolRules = map[string]struct{ title, doc string }{
	RuleSuppression: {"Inline suppression problem", "A sunset:ignore comment without a reason, past its until= date, or naming an unknown rule."},
	RuleExpression:  {"Expression not checkable or invalid", "A Rules language expression that does not parse or type-check, or holds template interpolation."},
	RuleParse:       {"File does not parse", "A Terraform, JSON or YAML file that could not be parsed; only text checks ran on it."},
}

// ToolRuleIDs returns the ids of sunset's own rules, sorted.
func ToolRuleIDs() []string {
	ids := make([]string, 0, len(toolRules))
	for id := range toolRules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// hit is a detection before it becomes a Finding.
type hit struct {
	rule    vocab.RuleID
	sev     scanner.Severity // tool rules only; catalog rules take the entry's severity
	kind    vocab.Kind       // resource kind
	id      string
	name    string
	address string // line-independent address of the thing within the file
	msg     string
	loc     scanner.Location // lines and columns; Path is filled in later
	// unread: the file was not fully read (a RuleParse hit at one of sunset's own bounds).
	unread bool
	// shadow marks a hit of the code detector that gives way to a hit of the same rule the
	// other detectors make on its lines: findings sunset reported before it read code keep
	// their fingerprints (see dropShadowed).
	shadow bool
	// ifPosted marks a hit that counts only when a script of the same repository posts
	// rules (see postedRules): a rule object that a firewall rule and a ruleset rule alike
	// could be.
	ifPosted bool
	// postsRules marks a hit of code that writes to the filters or firewall rules API.
	postsRules bool
}

// parseHit is the RuleParse notice of a file that does not parse, or that sunset stopped
// reading at one of its bounds (then the file also makes the run incomplete).
func parseHit(kind Kind, pe *parseError) hit {
	msg := "does not parse as " + string(kind) + " (" + pe.Msg + "); only text checks ran"
	if pe.Limit {
		msg = "not fully read as " + string(kind) + " (" + pe.Msg + "); structured checks stopped there, text checks ran; the run is incomplete"
	}
	return hit{
		rule: RuleParse, sev: scanner.SeverityNotice, kind: "file", address: "parse", msg: msg, unread: pe.Limit,
		loc: scanner.Location{StartLine: pe.Line, StartColumn: pe.Col, EndLine: pe.Line, EndColumn: pe.Col},
	}
}

// span is a block or object of a file: a suppression on the line before its first line
// covers every finding that starts inside it.
type span struct{ start, end int }

// Checker checks single files against a catalog. It is safe for concurrent use.
type Checker struct {
	cat    *catalog.Catalog
	asOf   time.Time
	text   *textMatcher
	tf     *tfRules
	shapes *shapeRules
	// detectors run in this order over every file whose kind they read.
	detectors []detector
	// entries caches catalog lookups with their severity as of asOf.
	entries map[string]entrySev
	// budget bounds the structure read at once (see structure).
	budget *semaphore.Weighted
}

type entrySev struct {
	e   catalog.Entry
	sev scanner.Severity
}

// NewChecker compiles the matchers of a catalog (nil means catalog.Default()) for the day
// asOf, which sets severities and decides whether suppressions have expired.
func NewChecker(cat *catalog.Catalog, asOf time.Time) *Checker {
	if cat == nil {
		cat = catalog.Default()
	}
	c := &Checker{cat: cat, asOf: asOf, entries: map[string]entrySev{}, budget: newStructureBudget()}
	for _, e := range cat.Entries() {
		c.entries[string(e.ID)] = entrySev{e: e, sev: e.SeverityAt(asOf)}
	}
	c.text = newTextMatcher(cat)
	c.tf = newTFRules(cat)
	c.shapes = newShapeRules(cat)
	c.detectors = []detector{tfDetector{c.tf}, shapeDetector{c.shapes}, textDetector{c.text}, listDetector{c.shapes.exprs}, newCodeDetector(cat, c.tf.exprs)}
	return c
}

// KnownRule reports whether id is a catalog rule or one of the tool's own rules.
func (c *Checker) KnownRule(id string) bool { return KnownRule(c.cat, id) }

// KnownRule reports whether id is a rule of cat (nil means catalog.Default()) or one of the
// tool's own rules, without compiling a Checker.
func KnownRule(cat *catalog.Catalog, id string) bool {
	if _, ok := toolRules[id]; ok {
		return true
	}
	if cat == nil {
		cat = catalog.Default()
	}
	_, ok := cat.Lookup(vocab.RuleID(id))
	return ok
}

// FileResult is what one file produced.
type FileResult struct {
	// Findings are sorted; inline suppressions are applied (suppressed ones are marked).
	Findings []scanner.Finding
	// Unread, when not empty, says why the file's structure was not fully read (nesting past
	// sunset's bound): a check counts the file as an error, so the run is incomplete and a
	// file sunset cannot read never passes a gate silently. Text checks ran over all of it.
	Unread string
	// IfPosted, when not nil, is what the file yields when a script of its repository posts
	// rules to the filters or firewall rules API: Findings and the rule objects such a
	// script sends as firewall rules (see postedRules). A check of one file alone uses
	// Findings.
	IfPosted []scanner.Finding
	// PostsRules is true for code that writes to the filters or firewall rules API.
	PostsRules bool
}

// CheckFile checks the contents of one file. displayPath is the path findings carry (slash
// separated, relative to where the check runs); it is also part of each fingerprint.
func (c *Checker) CheckFile(displayPath string, kind Kind, data []byte) FileResult {
	var hits []hit
	var spans []span
	unread := ""
	add := func(h hit) {
		if h.unread && unread == "" {
			unread = h.msg
		}
		hits = append(hits, h)
	}

	in := &input{path: displayPath, kind: kindOfContent(kind, data), data: data, li: newLineIndex(data)}
	defer func() { lowerBuffers.put(in.lower) }()
	for _, d := range c.detectors {
		if d.reads(in.kind) {
			spans = append(spans, d.check(c, in, add)...)
		}
	}
	posts, conditional := false, false
	for _, h := range hits {
		posts, conditional = posts || h.postsRules, conditional || h.ifPosted
	}
	hits = dropShadowed(hits)
	apply, by, notes := c.checkSuppressions(findSuppressions(data, in.li))
	cov := newCoverage(apply, by, spans)
	res := FileResult{Unread: unread, PostsRules: posts}
	res.Findings = c.fileFindings(displayPath, unconditional(hits, conditional), notes, cov)
	if conditional {
		res.IfPosted = c.fileFindings(displayPath, hits, notes, cov)
	}
	return res
}

// fileFindings are the findings of a file's hits and of its suppressions' notes, sorted.
func (c *Checker) fileFindings(displayPath string, hits, notes []hit, cov *coverage) []scanner.Finding {
	findings := c.findings(displayPath, hits, cov)
	findings = append(findings, c.findings(displayPath, notes, nil)...)
	scanner.SortFindings(findings)
	return findings
}

// unconditional returns the hits that count whoever posts the file (a copy when some do
// not).
func unconditional(hits []hit, some bool) []hit {
	if !some {
		return hits
	}
	out := make([]hit, 0, len(hits))
	for _, h := range hits {
		if !h.ifPosted {
			out = append(out, h)
		}
	}
	return out
}

// dropShadowed removes the code detector's hits that another detector's hit of the same rule
// covers: one that starts on a line the code hit spans.
func dropShadowed(hits []hit) []hit {
	type ruleLine struct {
		rule vocab.RuleID
		line int
	}
	taken := map[ruleLine]bool{}
	for _, h := range hits {
		if !h.shadow {
			taken[ruleLine{h.rule, h.loc.StartLine}] = true
		}
	}
	if len(taken) == 0 {
		return hits
	}
	out := hits[:0]
	for _, h := range hits {
		covered := false
		for l := h.loc.StartLine; h.shadow && l <= max(h.loc.EndLine, h.loc.StartLine); l++ {
			covered = covered || taken[ruleLine{h.rule, l}]
		}
		if !covered {
			out = append(out, h)
		}
	}
	return out
}

// toLower appends data lowercased (ASCII only, which is what the prefilters need) to dst.
func toLower(dst, data []byte) []byte {
	start := len(dst)
	if cap(dst)-start < len(data) {
		dst = append(dst, data...) // grown without zeroing first, as slices.Grow would
	}
	dst = dst[:start+len(data)]
	b := dst[start:]
	i := 0
	// Eight bytes at a time, read from data and written once: every file is lowercased for
	// the prefilters, so this loop runs over every byte a check reads.
	for ; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], lowerWord(binary.LittleEndian.Uint64(data[i:])))
	}
	for ; i < len(data); i++ {
		b[i] = lowerByte(data[i])
	}
	return dst
}

// lowerWord lowercases the ASCII letters of eight bytes at once and leaves every other byte
// (UTF-8 sequences included) as it is: a byte is an upper-case letter when, below 0x80, it
// is at least 'A' and not above 'Z'; adding 0x20 to those alone is or-ing in bit 5.
func lowerWord(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low7 := w &^ highs
	geA := low7 + ones*(0x80-'A')      // high bit set where the byte is >= 'A'
	gtZ := low7 + ones*(0x80-'Z'-1)    // high bit set where the byte is > 'Z'
	upper := (geA &^ gtZ) &^ w & highs // >= 'A', <= 'Z', and ASCII
	return w | upper>>2
}

// findings turns hits into findings: catalog severity as of the check date (entries not yet
// deprecated then produce nothing), fingerprints from rule, path and address, made unique by
// an occurrence number when one address repeats; hits identical in rule and position are kept
// once (a route and a text pattern of one entry can both match one call). cov (may be nil)
// marks the findings inline suppressions cover. Past MaxFindingsPerRule findings of one rule
// (suppressed and not counted apart), the rest become one finding (see aggregate).
func (c *Checker) findings(displayPath string, hits []hit, cov *coverage) []scanner.Finding {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i].loc, hits[j].loc
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.StartColumn < b.StartColumn
	})
	type ruleLine struct {
		rule vocab.RuleID
		line int
	}
	out := make([]scanner.Finding, 0, min(len(hits), 4*MaxFindingsPerRule))
	seenAt := map[ruleLine]bool{}
	occurrences := map[string]int{}
	aggs := newAggregates()
	for _, h := range hits {
		sev, ok := c.severity(h)
		if !ok {
			continue
		}
		if h.kind == "text" || h.kind == "endpoint" {
			at := ruleLine{h.rule, h.loc.StartLine}
			if seenAt[at] {
				continue
			}
			seenAt[at] = true
		}
		by := cov.suppressedBy(h.rule, h.loc.StartLine)
		if aggs.over(h, sev, by) {
			continue
		}
		key := string(h.rule) + "\x00" + h.address
		occurrences[key]++
		addr := h.address
		if n := occurrences[key]; n > 1 {
			addr = fmt.Sprintf("%s#%d", h.address, n)
		}
		out = append(out, c.build(displayPath, h, sev, addr, by))
	}
	return append(out, aggs.findings(c, displayPath)...)
}

// build makes the finding of a hit whose severity is known, at address addr.
func (c *Checker) build(displayPath string, h hit, sev scanner.Severity, addr, suppressedBy string) scanner.Finding {
	f := c.finding(h, sev)
	loc := h.loc
	loc.Path = displayPath
	f.Location = &loc
	f.Fingerprint = scanner.Fingerprint(scanner.SourceFile, string(h.rule), displayPath, addr)
	f.Suppressed, f.SuppressedBy = suppressedBy != "", suppressedBy
	return f
}

// severity is a hit's severity; false when its rule is unknown or not deprecated yet.
func (c *Checker) severity(h hit) (scanner.Severity, bool) {
	if _, ok := toolRules[string(h.rule)]; ok {
		return h.sev, h.sev > scanner.SeverityNone
	}
	es, ok := c.entries[string(h.rule)]
	if !ok || es.sev == scanner.SeverityNone {
		return scanner.SeverityNone, false
	}
	if h.sev > scanner.SeverityNone && h.sev < es.sev {
		return h.sev, true // a detector may know a use is harmless (e.g. a setting turned off)
	}
	return es.sev, true
}

// finding builds the finding of a hit with its severity (see severity).
func (c *Checker) finding(h hit, sev scanner.Severity) scanner.Finding {
	f := scanner.Finding{
		RuleID:   h.rule,
		Severity: sev,
		Message:  h.msg,
		Source:   scanner.SourceFile,
		Resource: scanner.Resource{Kind: h.kind, ID: h.id, Name: h.name},
	}
	if tr, ok := toolRules[string(h.rule)]; ok {
		f.Title = tr.title
		return f
	}
	e := c.entries[string(h.rule)].e
	f.Title = e.Title
	f.DeprecatedOn, f.EndOfLife = e.DeprecatedOn.String(), e.EndOfLife.String()
	f.Replacement, f.DocURL = e.Replacement, e.DocURL
	if f.Message == "" {
		f.Message = e.Title
	}
	f.Message = strings.TrimSpace(f.Message) + "; " + e.LifeAt(c.asOf)
	if e.Replacement != "" {
		// The message is what annotations and SARIF show: say what to use instead.
		f.Message += ". Use instead: " + e.Replacement
	}
	return f
}
