package reports

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sync"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// The page's template, style sheet and script are files so they read as what they are; they
// are embedded so the binary (and the page it writes) needs nothing else.
//
//go:embed html/report.html.tmpl html/report.css html/report.js
var htmlFiles embed.FS

// htmlAssets are parsed once, when a page is first written (not at start-up: most runs
// write none): the template, the style and script inlined in every page, and the
// Content-Security-Policy that admits exactly those two by hash.
var htmlAssets = sync.OnceValue(func() struct {
	tmpl *template.Template
	css  template.CSS
	js   template.JS
	csp  string
} {
	read := func(name string) string {
		b, err := htmlFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		return string(b)
	}
	css, js := read("html/report.css"), read("html/report.js")
	tmpl := template.Must(template.New("report.html.tmpl").ParseFS(htmlFiles, "html/report.html.tmpl"))
	return struct {
		tmpl *template.Template
		css  template.CSS
		js   template.JS
		csp  string
	}{tmpl, template.CSS(css), template.JS(js), contentSecurityPolicy(css, js)}
})

// contentSecurityPolicy allows the page nothing but its own inline style and script,
// identified by their SHA-256 hashes: no network fetch of any kind, no other inline script
// (a script smuggled into the page through user text would not run even if it were not
// escaped), no forms, no base URL, no plugins. Inline SVG needs no source of its own.
func contentSecurityPolicy(css, js string) string {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; style-src " + hash(css) + "; script-src " + hash(js) +
		"; img-src 'none'; font-src 'none'; connect-src 'none'; object-src 'none'; frame-src 'none'" +
		"; base-uri 'none'; form-action 'none'"
}

// HTML writes one self-contained HTML page: summary cards, "what to do first" (the zones and
// accounts with the most at stake first, each with why, what its plan runs and what blocks
// it), a timeline of the catalog's deprecation and end-of-life dates, charts of findings by
// rule and by zone, the findings grouped by zone, account or file in collapsible <details>
// (each finding a headline with its details behind it; a small inline script adds a filter
// and expand/collapse all, and nothing needs it), read errors, the migration plan when one
// is given, and the rules hit. A large page (more than 1,500 findings and plan steps) stays
// small and quick to open: findings are listed by rule with the objects they name, the
// plan's steps by kind in words, and steps that read alike are shown once with their count.
// The page loads nothing: its style and script are inline and admitted by hash in a
// Content-Security-Policy that forbids every fetch, and its pictures are inline SVG. It
// prints on A4.
//
// Every piece of text from the account, a repository or a user catalog (names, messages,
// expressions, descriptions) goes through html/template's contextual escaping and is never
// marked as trusted markup.
type HTML struct {
	// Catalog supplies the deprecations the timeline shows for context, next to the rules
	// the report hits; nil means the embedded catalog. Dates of the rules the report hits
	// come from the report itself (they are the dates its severities were computed with).
	Catalog *catalog.Catalog
	// Plan, when set, adds the migration plan: per account and zone, its ordered steps with
	// their API calls, the old -> new expressions, quota and behaviour warnings, and the
	// manual steps. Steps link to the findings they resolve. A *migrate.Plan is one.
	Plan migrate.PlanView
}

// WithPlan implements PlanAware.
func (h HTML) WithPlan(p migrate.PlanView) Reporter {
	h.Plan = p
	return h
}

func init() {
	registry["html"] = formatDef{
		doc: "one self-contained HTML page (summary, what to do first, timeline, charts, findings by zone, plan), offline and printable",
		new: func(Options) Reporter { return HTML{} },
	}
}

// Write implements Reporter.
func (h HTML) Write(w io.Writer, r *Report) error {
	cat := h.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	page, err := buildHTMLPage(r, cat, h.Plan)
	if err != nil {
		return fmt.Errorf("rendering HTML report: %w", err)
	}
	// The page is rendered into the writer, not into a buffer of its own: a page of a
	// million findings is gigabytes.
	bw := bufio.NewWriterSize(w, streamBufSize)
	if err := htmlAssets().tmpl.Execute(bw, page); err != nil {
		return fmt.Errorf("rendering HTML report: %w", err)
	}
	if err := page.Plan.readErr(); err != nil {
		// A zone of the plan could not be read while its section was rendered.
		return fmt.Errorf("rendering HTML report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}
