package repo

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

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

// Kind is how a file is read.
type Kind string

// File kinds.
const (
	KindTerraform     Kind = "terraform"      // .tf, .tfvars, .hcl (Terragrunt): HCL native syntax
	KindTerraformJSON Kind = "terraform-json" // .tf.json, .tfvars.json
	KindJSON          Kind = "json"
	KindYAML          Kind = "yaml"
	KindText          Kind = "text"
)

// KindOf returns the kind of a file from its name.
func KindOf(name string) Kind {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	switch {
	case strings.HasSuffix(base, ".tf.json"), strings.HasSuffix(base, ".tfvars.json"):
		return KindTerraformJSON
	case strings.HasSuffix(base, ".tf"), strings.HasSuffix(base, ".tfvars"), strings.HasSuffix(base, ".hcl"):
		return KindTerraform
	case strings.HasSuffix(base, ".json"):
		return KindJSON
	case strings.HasSuffix(base, ".yaml"), strings.HasSuffix(base, ".yml"):
		return KindYAML
	}
	return KindText
}

// ParseKind reads a --stdin-type value: terraform, json, yaml or text.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case KindTerraform, KindJSON, KindYAML, KindText, KindTerraformJSON:
		return k, nil
	}
	return "", fmt.Errorf("unknown file type %q (want terraform, json, yaml or text)", s)
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
	// entries caches catalog lookups with their severity as of asOf.
	entries map[string]entrySev
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
	c := &Checker{cat: cat, asOf: asOf, entries: map[string]entrySev{}}
	for _, e := range cat.Entries() {
		c.entries[string(e.ID)] = entrySev{e: e, sev: e.SeverityAt(asOf)}
	}
	c.text = newTextMatcher(cat)
	c.tf = newTFRules(cat)
	c.shapes = newShapeRules(cat)
	return c
}

// KnownRule reports whether id is a catalog rule or one of the tool's own rules.
func (c *Checker) KnownRule(id string) bool {
	if _, ok := c.entries[id]; ok {
		return true
	}
	_, ok := toolRules[id]
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
}

// bufPool recycles the lowercase copies the text prefilters search.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// CheckFile checks the contents of one file. displayPath is the path findings carry (slash
// separated, relative to where the check runs); it is also part of each fingerprint.
func (c *Checker) CheckFile(displayPath string, kind Kind, data []byte) FileResult {
	li := newLineIndex(data)
	var hits []hit
	var spans []span
	unread := ""
	add := func(h hit) {
		if h.unread && unread == "" {
			unread = h.msg
		}
		hits = append(hits, h)
	}

	bp := bufPool.Get().(*[]byte)
	lower := toLower((*bp)[:0], data)
	defer func() { *bp = lower[:0]; bufPool.Put(bp) }()

	switch kind {
	case KindTerraform, KindTerraformJSON:
		spans = c.tf.check(c, displayPath, kind, data, lower, li, add)
	case KindJSON, KindYAML:
		spans = c.shapes.check(c, kind, data, lower, li, add)
	case KindText:
		if listFile(displayPath, data) {
			c.shapes.exprs.checkList(li, data, add)
		}
	}
	c.text.match(data, lower, li, add)

	apply, by, notes := c.checkSuppressions(findSuppressions(data, li))
	findings := c.findings(displayPath, hits, newCoverage(apply, by, spans))
	findings = append(findings, c.findings(displayPath, notes, nil)...)
	scanner.SortFindings(findings)
	return FileResult{Findings: findings, Unread: unread}
}

// toLower appends data lowercased (ASCII only, which is what the prefilters need) to dst.
func toLower(dst, data []byte) []byte {
	dst = append(dst, data...)
	for i, c := range dst {
		if c >= 'A' && c <= 'Z' {
			dst[i] = c + 32
		}
	}
	return dst
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
