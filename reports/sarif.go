package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// SARIF constants.
const (
	// SARIFVersion is the SARIF version written.
	SARIFVersion = "2.1.0"
	// SARIFSchemaURI is the schema the log declares: the OASIS errata01 schema of 2.1.0.
	SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// SARIFFingerprintKey is the partialFingerprints key of a result; the version suffix
	// changes only if the fingerprint's recipe does, so alerts keep matching across runs.
	SARIFFingerprintKey = "sunset/v1"
	// InformationURI is the tool's home page, written as tool.driver.informationUri.
	InformationURI = "https://github.com/sunsetscan/sunset"
)

// SARIF writes a SARIF 2.1.0 log with one run, in the subset GitHub code scanning reads:
//
//   - tool.driver has one rule per entry of Report.Catalog (id, a PascalCase name, short and full
//     descriptions, help as text and Markdown with the dates and the replacement, helpUri from
//     doc_url, defaultConfiguration.level from the most severe finding of the rule, tags);
//   - each finding is a result with ruleId and ruleIndex, level (error, warning, note),
//     message.text, partialFingerprints {"sunset/v1": fingerprint}, and suppressions (kind
//     inSource for inline comments, external for baselines and configuration) when suppressed;
//   - a file finding has a physicalLocation: artifactLocation.uri is the repository-relative
//     path with forward slashes, percent-encoded outside the URI unreserved characters, and a
//     region with the 1-based lines and columns the finding has (columns in Unicode characters);
//   - a live finding has no file: its location holds only a logicalLocation naming the zone (or
//     account) and the resource. That is valid SARIF 2.1.0, but GitHub code scanning rejects a
//     log containing such a result ("expected a physical location"), so upload the SARIF of
//     `sunset check` to code scanning, not that of a live scan;
//   - invocations[0].executionSuccessful is false when the scan is incomplete, and every
//     report error is a toolExecutionNotification of level error.
//
// An empty run has "results": []. User text is sanitised (see textsafe.Sanitize).
type SARIF struct{}

// The SARIF object model, limited to what this package writes. Field order is output order.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		ColumnKind  string            `json:"columnKind"`
		Results     json.RawMessage   `json:"results"` // streamMarker: written one by one
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifHelp       `json:"help"`
		HelpURI              string          `json:"helpUri,omitempty"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           sarifRuleProps  `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags         []string `json:"tags"`
		DeprecatedOn string   `json:"deprecatedOn,omitempty"`
		EndOfLife    string   `json:"endOfLife,omitempty"`
		Replacement  string   `json:"replacement,omitempty"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifLogical struct {
		Name               string `json:"name,omitempty"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
)

// Write implements Reporter.
func (SARIF) Write(w io.Writer, r *Report) error {
	rules, index := sarifRules(r)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           ToolName,
			Version:        textsafe.Sanitize(r.Tool.Version),
			InformationURI: InformationURI,
			Rules:          rules,
		}},
		Invocations: []sarifInvocation{sarifInvocationOf(r)},
		ColumnKind:  "unicodeCodePoints",
		Results:     streamMarker,
	}
	// The results are written one at a time, as they are made.
	doc := sarifLog{Schema: SARIFSchemaURI, Version: SARIFVersion, Runs: []sarifRun{run}}
	err := writeJSONStream(w, doc, "results", r.Findings.Len(), func(i int) any {
		f := r.Findings.At(i)
		res := sarifResultOf(&f, index)
		return &res
	})
	if err != nil {
		return fmt.Errorf("writing SARIF: %w", err)
	}
	return nil
}

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s scanner.Severity) string {
	switch s {
	case scanner.SeverityError:
		return "error"
	case scanner.SeverityWarning:
		return "warning"
	case scanner.SeverityNotice:
		return "note"
	}
	return "none"
}

// sarifRules returns the rules of the run (the catalog's, then any rule a finding names that
// the catalog lacks, as a report read from an older file may) and their index by id.
func sarifRules(r *Report) ([]sarifRule, map[string]int) {
	infos := append([]RuleInfo(nil), r.Catalog...)
	known := make(map[string]bool, len(infos))
	for _, c := range infos {
		known[c.ID] = true
	}
	var extra []RuleInfo
	for _, f := range r.Findings.All() {
		if !known[string(f.RuleID)] {
			known[string(f.RuleID)] = true
			extra = append(extra, RuleInfo{ID: string(f.RuleID), Title: f.Title, DeprecatedOn: f.DeprecatedOn,
				EndOfLife: f.EndOfLife, Replacement: f.Replacement, DocURL: f.DocURL})
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].ID < extra[j].ID })
	infos = append(infos, extra...)

	worst := map[string]scanner.Severity{}
	for _, f := range r.Findings.All() {
		if f.Severity > worst[string(f.RuleID)] {
			worst[string(f.RuleID)] = f.Severity
		}
	}
	rules := make([]sarifRule, 0, len(infos))
	index := make(map[string]int, len(infos))
	for _, c := range infos {
		if _, dup := index[c.ID]; dup {
			continue // a rule id appears once, or ruleIndex would be ambiguous
		}
		index[c.ID] = len(rules)
		rules = append(rules, sarifRuleOf(c, worst[c.ID]))
	}
	return rules, index
}

// sarifRuleOf describes one catalog entry.
func sarifRuleOf(c RuleInfo, worst scanner.Severity) sarifRule {
	id := textsafe.Sanitize(c.ID)
	title := orElse(textsafe.Sanitize(c.Title), id)
	desc := textsafe.Sanitize(c.Description)
	full := orElse(desc, title+".")
	level := sarifLevel(worst)
	if c.Advisory {
		level = "note"
	}
	tags := []string{"deprecation"}
	if c.Advisory {
		tags = []string{"advisory"}
	}
	props := sarifRuleProps{
		Tags:         tags,
		DeprecatedOn: textsafe.Sanitize(c.DeprecatedOn),
		EndOfLife:    textsafe.Sanitize(c.EndOfLife),
		Replacement:  textsafe.Sanitize(c.Replacement),
	}
	return sarifRule{
		ID:                   id,
		Name:                 pascalCase(id),
		ShortDescription:     sarifText{Text: title},
		FullDescription:      sarifText{Text: full},
		Help:                 sarifHelpOf(c, title, desc),
		HelpURI:              absoluteURL(c.DocURL),
		DefaultConfiguration: sarifRuleConfig{Level: level},
		Properties:           props,
	}
}

// sarifHelpOf writes what to do about a rule: the description, the dates, the replacement and
// the documentation link, as plain text and as Markdown.
func sarifHelpOf(c RuleInfo, title, desc string) sarifHelp {
	var text, md []string
	if desc != "" {
		text = append(text, desc)
		md = append(md, escapeMarkdown(desc))
	} else {
		text = append(text, title+".")
		md = append(md, escapeMarkdown(title)+".")
	}
	if d := textsafe.Sanitize(c.DeprecatedOn); d != "" {
		text = append(text, "Deprecated on: "+d+".")
		md = append(md, "**Deprecated on:** "+escapeMarkdown(d))
	}
	if d := textsafe.Sanitize(c.EndOfLife); d != "" {
		text = append(text, sentence("End of life: "+d))
		md = append(md, "**End of life:** "+escapeMarkdown(d))
	}
	if rep := textsafe.Sanitize(c.Replacement); rep != "" {
		text = append(text, sentence("Replacement: "+rep))
		md = append(md, "**Replacement:** "+escapeMarkdown(rep))
	}
	if u := absoluteURL(c.DocURL); u != "" {
		text = append(text, "Documentation: "+u)
		md = append(md, "[Documentation]("+markdownURL(u)+")")
	}
	return sarifHelp{Text: strings.Join(text, "\n"), Markdown: strings.Join(md, "\n\n")}
}

// sarifInvocationOf reports whether the scan read everything, with one notification per error.
func sarifInvocationOf(r *Report) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: !r.Summary.Incomplete && len(r.Errors) == 0}
	for _, e := range r.Errors {
		n := sarifNotification{Level: "error", Message: sarifText{Text: orElse(errorLine(e), "read error")}}
		if e.Path != "" {
			n.Locations = []sarifLocation{{PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(e.Path)}}}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	// The files not read, as notes (they leave the run successful); a tree of images does
	// not make a notification each: past sarifMaxSkipped, one counts the rest.
	for i, f := range r.Summary.Skipped {
		if i == sarifMaxSkipped {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "note",
				Message: sarifText{Text: fmt.Sprintf("%d more files not read (the JSON report's summary lists every one)", len(r.Summary.Skipped)-i)}})
			break
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "note",
			Message:   sarifText{Text: "not read: " + orElse(textsafe.Sanitize(f.Why), "skipped")},
			Locations: []sarifLocation{{PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(f.Path)}}}}})
	}
	return inv
}

// sarifMaxSkipped bounds the notes naming files not read.
const sarifMaxSkipped = 100

// sarifResultOf converts one finding.
func sarifResultOf(f *scanner.Finding, index map[string]int) sarifResult {
	res := sarifResult{
		RuleID:    textsafe.Sanitize(string(f.RuleID)),
		RuleIndex: index[string(f.RuleID)],
		Level:     sarifLevel(f.Severity),
		Message:   sarifText{Text: orElse(textsafe.Sanitize(f.Message), orElse(textsafe.Sanitize(f.Title), textsafe.Sanitize(string(f.RuleID))))},
		Locations: []sarifLocation{sarifLocationOf(f)},
	}
	if fp := textsafe.Sanitize(f.Fingerprint); fp != "" {
		res.PartialFingerprints = map[string]string{SARIFFingerprintKey: fp}
	}
	if f.Suppressed {
		s := sarifSuppression{Kind: suppressionKind(f.SuppressedBy)}
		if by := textsafe.Sanitize(f.SuppressedBy); by != "" {
			s.Justification = "suppressed by " + by
		}
		res.Suppressions = []sarifSuppression{s}
	}
	return res
}

// sarifLocationOf is the physical location of a file finding, else a logical one.
func sarifLocationOf(f *scanner.Finding) sarifLocation {
	if f.Location != nil && f.Location.Path != "" {
		phys := &sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(f.Location.Path)}}
		if l := f.Location; l.StartLine > 0 {
			reg := &sarifRegion{StartLine: l.StartLine}
			if l.StartColumn > 0 {
				reg.StartColumn = l.StartColumn
			}
			if l.EndLine >= l.StartLine {
				reg.EndLine = l.EndLine
			}
			// An end column without an end line would read as a column of the start line.
			if l.EndColumn > 0 && (reg.EndLine > 0 || reg.StartColumn > 0) {
				reg.EndColumn = l.EndColumn
				if reg.EndLine == 0 {
					reg.EndLine = l.StartLine
				}
			}
			if reg.EndLine == reg.StartLine && reg.EndColumn > 0 && reg.EndColumn < reg.StartColumn {
				reg.EndColumn = 0 // an inverted range; keep the start
			}
			phys.Region = reg
		}
		return sarifLocation{PhysicalLocation: phys}
	}
	return sarifLocation{LogicalLocations: []sarifLogical{liveLogicalLocation(f)}}
}

// liveLogicalLocation names a live finding's object: "ZONE/KIND/ID" (or "account:ID/...").
func liveLogicalLocation(f *scanner.Finding) sarifLogical {
	parts := make([]string, 0, 3)
	for _, p := range []string{textsafe.Sanitize(where(f)), textsafe.Sanitize(string(f.Resource.Kind)), textsafe.Sanitize(orElse(f.Resource.ID, f.Resource.Name))} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	fqn := strings.Join(parts, "/")
	return sarifLogical{
		Name:               textsafe.Sanitize(orElse(f.Resource.Name, f.Resource.ID)),
		FullyQualifiedName: orElse(fqn, textsafe.Sanitize(string(f.RuleID))),
		Kind:               "resource",
	}
}

// suppressionKind is inSource for a suppression written next to the finding (an inline
// comment), external for one kept elsewhere (a baseline, the configuration file).
func suppressionKind(by string) string {
	b := strings.ToLower(by)
	if strings.Contains(b, "inline") || strings.Contains(b, "comment") || strings.Contains(b, "source") {
		return "inSource"
	}
	return "external"
}

// slashPath writes a path with forward slashes and without a leading "./", the form
// repository-relative paths take in CI annotations.
func slashPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// artifactURI turns a repository-relative path into a relative URI reference: forward
// slashes, every byte outside the unreserved set percent-encoded, so spaces, '%', '#', '?'
// and a ':' in the first segment (which would read as a scheme) cannot change its meaning.
// An absolute path becomes a file URI.
func artifactURI(path string) string {
	p := slashPath(path)
	prefix := ""
	switch {
	case len(p) >= 3 && p[1] == ':' && p[2] == '/' && isASCIILetter(p[0]): // a Windows drive
		prefix, p = "file:///"+p[:2], p[2:]
	case strings.HasPrefix(p, "/"):
		prefix = "file://"
	}
	var b strings.Builder
	b.WriteString(prefix)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || isASCIILetter(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// absoluteURL returns u when it is an absolute http(s) URL without credentials, else "":
// catalog entries come from user files, and a help link must not point anywhere else.
func absoluteURL(u string) string {
	u = strings.TrimSpace(u)
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.User != nil {
		return ""
	}
	if strings.ContainsFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ""
	}
	return p.String()
}

// pascalCase turns a rule id into a SARIF rule name: "firewall-rules" -> "FirewallRules".
func pascalCase(id string) string {
	var b strings.Builder
	upper := true
	for _, r := range id {
		switch {
		case r == '-' || r == '_' || r == '.' || r == ' ' || r == '/':
			upper = true
		case upper:
			b.WriteString(strings.ToUpper(string(r)))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
