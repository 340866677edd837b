package reports

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// FuzzCIFormats puts arbitrary text in every user field of a live and a file finding and an
// error: the GitHub commands must read back one per line with the file intact, the CSV keep
// its shape and guard, the JUnit XML parse, the SARIF and GitLab JSON parse, and every
// Markdown table row read back as the text.
func FuzzCIFormats(f *testing.F) {
	f.Add("msg", "zone.example", "infra/waf.tf", "name")
	f.Add(hostileText, "evil|`<b>.example", "a,b:c d%/x.tf", "=1+2")
	f.Add("a\r\n::error::x", "@team", "x\n::warning::y.tf", "]]>")
	f.Fuzz(func(t *testing.T, text, zone, path, name string) {
		live := scanner.Finding{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: text, Message: text,
			Source: scanner.SourceLive, ZoneID: "z1", ZoneName: zone, EndOfLife: "2025-06-15",
			Resource: scanner.Resource{Kind: "firewall_rule", ID: name, Name: name}, Fingerprint: name,
		}
		file := live
		file.Source, file.ZoneID, file.ZoneName = scanner.SourceFile, "", ""
		file.Location = &scanner.Location{Path: path, StartLine: 3, StartColumn: 2}
		r := NewReport(Input{AsOf: asOf, Findings: []scanner.Finding{live, file}, FailOn: scanner.SeverityWarning,
			Errors: []scanner.RunError{{ZoneName: zone, What: name, Message: text}}})

		cmds, logLines := parseGitHub(t, render(t, "github", Options{}, r))
		if len(cmds) != 3 || len(logLines) != 1 {
			t.Fatalf("github: %d commands, %d log lines", len(cmds), len(logLines))
		}
		if want := slashPath(stripControls(path)); want != "" && cmds[1].props["file"] != want {
			t.Fatalf("github: file %q, want %q", cmds[1].props["file"], want)
		}

		rows := parseCSV(t, render(t, "csv", Options{}, r))
		if len(rows) != 3 {
			t.Fatalf("csv: %d rows", len(rows))
		}
		for _, row := range rows[1:] {
			for _, c := range row {
				if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
					t.Fatalf("csv: cell %q starts a formula", c)
				}
			}
		}

		doc := parseJUnit(t, render(t, "junit", Options{}, r))
		if doc.Tests != 3 || doc.Failures != 2 || doc.Errors != 1 {
			t.Fatalf("junit counts: %+v", doc)
		}

		for _, format := range []string{"sarif", "gitlab"} {
			if out := render(t, format, Options{}, r); !json.Valid([]byte(out)) {
				t.Fatalf("%s: invalid JSON:\n%s", format, out)
			}
		}

		md := render(t, "markdown", Options{}, r)
		tables := htmlTables(t, renderGFM(t, md))
		if len(tables) != 4 { // rules, the zone, the file, the errors
			t.Fatalf("markdown: %d tables:\n%s", len(tables), md)
		}
		want := "-"
		if s := textsafe.Sanitize(text); s != "" {
			want = shown(truncateRunes(s, markdownMaxCell))
		}
		for _, tab := range tables[1:3] {
			if len(tab) != 2 || len(tab[1]) != 5 || tab[1][3] != want {
				t.Fatalf("markdown: finding row %q, want message %q", tab, want)
			}
		}
		if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
			t.Fatal("markdown: unbalanced <details>")
		}
	})
}
