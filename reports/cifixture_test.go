package reports

import (
	"fmt"
	"io"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// hostileText is what an attacker who controls a rule description or a zone can put in a
// report: line breaks, terminal escapes, Markdown and HTML, workflow command syntax, formula
// starts, mentions, a bidi override and characters XML cannot hold.
const hostileText = "=HYPERLINK(\"http://evil.invalid\")|`code`|<script>alert(1)</script>\r\n" +
	"::error ::pwned %0A 100% @octo-org/team *bold* [link](javascript:alert(1)) \x1b[31mred\x1b[0m \u202eevil\x00\x01\ufffe"

// ruleBook stands in for the catalog: it adds descriptions to the report's rules.
type ruleBook map[string]catalog.Entry

func (b ruleBook) Lookup(id vocab.RuleID) (catalog.Entry, bool) {
	e, ok := b[string(id)]
	return e, ok
}

// ciFindings mixes live findings (zone and account), file findings with full positions, a
// path with commas, colons, spaces and a percent sign, findings suppressed inline and by the
// baseline, and hostile text in every user field of one live finding.
func ciFindings() []scanner.Finding {
	fs := sampleFindings()
	fs = append(fs,
		scanner.Finding{
			RuleID: "cname-flattening-setting", Severity: scanner.SeverityWarning, Title: "CNAME flattening setting",
			Message:   "Terraform attribute cname_flattening is deprecated; use flatten_all_cnames in cloudflare_zone_dns_settings.",
			Source:    scanner.SourceFile,
			Resource:  scanner.Resource{Kind: "cloudflare_zone_settings_override", Name: "cloudflare_zone_settings_override.main"},
			Location:  &scanner.Location{Path: "envs/prod, eu:west/zone settings%.tf", StartLine: 7, StartColumn: 5, EndLine: 7, EndColumn: 31},
			EndOfLife: "2026-01-01", Fingerprint: "fp7",
		},
		scanner.Finding{
			RuleID: "zone-setting-brotli", Severity: scanner.SeverityNotice, Title: "Brotli setting",
			Message:     "Terraform sets brotli, which is always on now.",
			Source:      scanner.SourceFile,
			Resource:    scanner.Resource{Kind: "cloudflare_zone_settings_override", Name: "cloudflare_zone_settings_override.main"},
			Location:    &scanner.Location{Path: "./envs/prod/zone.tf", StartLine: 9},
			Fingerprint: "fp8", Suppressed: true, SuppressedBy: "inline comment",
		},
		scanner.Finding{
			RuleID: "srv-data-fields", Severity: scanner.SeverityError, Title: "SRV data fields " + hostileText,
			Message: "SRV record " + hostileText,
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "c0ffee0000000000000000000000beef", ZoneName: "evil|zone`<b>.example",
			Resource:  scanner.Resource{Kind: "dns_record", ID: "=1+2", Name: "@evil " + hostileText},
			EndOfLife: "2025-12-31", Replacement: "name " + hostileText, DocURL: "javascript:alert(1)",
			Fingerprint: "fp9",
		},
	)
	return fs
}

// ciReport is the report every CI format's golden file is written from.
func ciReport() *Report {
	return NewReport(Input{
		Version:  "1.2.3",
		AsOf:     asOf,
		Source:   Source{Kind: SourceLive, Target: "https://api.example.invalid/client/v4"},
		Findings: ciFindings(),
		Errors: []scanner.RunError{
			{AccountID: "a1", ZoneID: "5f0c1c3c7e9d4b2a8c6e0f1a2b3c4d5e", ZoneName: "broken.example", What: "firewall rules", Message: "HTTP 500 after 3 attempts"},
			{Path: "infra/bad.tf", What: "parse", Message: "infra/bad.tf:3,1-2: Argument or block definition required"},
			{ZoneName: "hostile.example", What: "dns records", Message: hostileText},
		},
		Counts: Counts{ZonesScanned: 4, ZonesFailed: 2, Accounts: 1, FilesScanned: 3, FilesFailed: 1},
		FailOn: scanner.SeverityError,
		Rules: ruleBook{
			"firewall-rules": {ID: "firewall-rules", Title: "Firewall rules API",
				Description: "The firewall rules API and its filters are retired; custom rules replace them.",
				Replacement: "custom rules", DocURL: "https://example.invalid/fw"},
			"srv-data-fields": {ID: "srv-data-fields", Description: "SRV records " + hostileText},
			"zone-setting-brotli": {ID: "zone-setting-brotli", Title: "Brotli setting", Advisory: true,
				Description: "Brotli is always on; the setting does nothing."},
		},
	})
}

// filesReport is a report of a files scan only: what `sunset check` uploads to code scanning.
func filesReport() *Report {
	var fs []scanner.Finding
	for _, f := range ciFindings() {
		if f.Location != nil {
			fs = append(fs, f)
		}
	}
	return NewReport(Input{
		Version: "1.2.3", AsOf: asOf, Source: Source{Kind: SourceFiles, Paths: []string{"."}},
		Findings: fs, Counts: Counts{FilesScanned: 3}, FailOn: scanner.SeverityWarning,
	})
}

// manyFindings has n findings of each severity, half of them in files.
func manyFindings(n int) []scanner.Finding {
	var fs []scanner.Finding
	for _, sev := range []scanner.Severity{scanner.SeverityError, scanner.SeverityWarning, scanner.SeverityNotice} {
		for i := range n {
			f := scanner.Finding{
				RuleID: vocab.RuleID("rule-" + sev.String()), Severity: sev, Title: "Rule " + sev.String(),
				Message: fmt.Sprintf("%s finding %d", sev, i), Source: scanner.SourceLive,
				ZoneID: fmt.Sprintf("z%d", i), ZoneName: fmt.Sprintf("z%d.example", i),
				Resource: scanner.Resource{Kind: "firewall_rule", ID: fmt.Sprint(i)}, Fingerprint: fmt.Sprintf("%s-%d", sev, i),
			}
			if i%2 == 1 {
				f.Source, f.ZoneID, f.ZoneName = scanner.SourceFile, "", ""
				f.Location = &scanner.Location{Path: fmt.Sprintf("f%d.tf", i), StartLine: i + 1}
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// BenchmarkCIFormats writes 10,000 live findings in each CI format.
func BenchmarkCIFormats(b *testing.B) {
	r := largeReport(10000)
	for _, format := range []string{"sarif", "junit", "github", "gitlab", "csv", "markdown"} {
		b.Run(format, func(b *testing.B) {
			rep, err := New(format, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := rep.Write(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
