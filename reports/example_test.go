package reports_test

import (
	"fmt"
	"os"
	"time"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
)

// exampleReport is a small live scan: one zone with two findings, nothing failed.
func exampleReport() *reports.Report {
	return reports.NewReport(reports.Input{
		Version: "0.1.0",
		AsOf:    time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC),
		Source:  reports.Source{Kind: reports.SourceDemo, Target: "http://127.0.0.1:8787/client/v4"},
		Findings: []scanner.Finding{
			{
				RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
				Message: "Firewall rule \"block bots\" uses the retired firewall rules API.",
				Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "z1", ZoneName: "example.com",
				Resource:  scanner.Resource{Kind: "firewall_rule", ID: "r1", Name: "block bots"},
				EndOfLife: "2025-06-15", Fingerprint: "5d1c",
			},
			{
				RuleID: "zone-setting-brotli", Severity: scanner.SeverityNotice, Title: "Brotli setting",
				Message: "The brotli setting is always on now; remove it from automation.",
				Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "z1", ZoneName: "example.com",
				Resource:    scanner.Resource{Kind: "zone_setting", ID: "brotli"},
				Fingerprint: "9e0a",
			},
		},
		Counts: reports.Counts{ZonesScanned: 1, Accounts: 1},
		FailOn: scanner.SeverityError,
	})
}

func Example_json() {
	rep, err := reports.New("json", reports.Options{})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout, exampleReport()); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "schema_version": 1,
	//   "tool": {
	//     "name": "sunset",
	//     "version": "0.1.0"
	//   },
	//   "as_of": "2025-07-01",
	//   "source": {
	//     "kind": "demo",
	//     "target": "http://127.0.0.1:8787/client/v4"
	//   },
	//   "summary": {
	//     "findings_total": 2,
	//     "by_severity": {
	//       "error": 1,
	//       "warning": 0,
	//       "notice": 1
	//     },
	//     "suppressed": 0,
	//     "zones_scanned": 1,
	//     "zones_failed": 0,
	//     "zones_not_scanned": 0,
	//     "accounts": 1,
	//     "files_scanned": 0,
	//     "files_failed": 0,
	//     "retired_endpoints": 0,
	//     "incomplete": false,
	//     "fail_on": "error",
	//     "gate_failed": true,
	//     "by_rule": [
	//       {
	//         "rule_id": "firewall-rules",
	//         "title": "Firewall rules API",
	//         "severity": "error",
	//         "count": 1
	//       },
	//       {
	//         "rule_id": "zone-setting-brotli",
	//         "title": "Brotli setting",
	//         "severity": "notice",
	//         "count": 1
	//       }
	//     ]
	//   },
	//   "findings": [
	//     {
	//       "rule_id": "firewall-rules",
	//       "severity": "error",
	//       "title": "Firewall rules API",
	//       "message": "Firewall rule \"block bots\" uses the retired firewall rules API.",
	//       "source": "live",
	//       "account_id": "a1",
	//       "zone_id": "z1",
	//       "zone_name": "example.com",
	//       "resource": {
	//         "kind": "firewall_rule",
	//         "id": "r1",
	//         "name": "block bots"
	//       },
	//       "end_of_life": "2025-06-15",
	//       "fingerprint": "5d1c",
	//       "suppressed": false
	//     },
	//     {
	//       "rule_id": "zone-setting-brotli",
	//       "severity": "notice",
	//       "title": "Brotli setting",
	//       "message": "The brotli setting is always on now; remove it from automation.",
	//       "source": "live",
	//       "account_id": "a1",
	//       "zone_id": "z1",
	//       "zone_name": "example.com",
	//       "resource": {
	//         "kind": "zone_setting",
	//         "id": "brotli"
	//       },
	//       "fingerprint": "9e0a",
	//       "suppressed": false
	//     }
	//   ],
	//   "errors": [],
	//   "retired": [],
	//   "catalog": [
	//     {
	//       "id": "firewall-rules",
	//       "title": "Firewall rules API",
	//       "end_of_life": "2025-06-15"
	//     },
	//     {
	//       "id": "zone-setting-brotli",
	//       "title": "Brotli setting"
	//     }
	//   ]
	// }
}

func Example_table() {
	// Two firewall rules in two zones: what both findings say alike is said once, under
	// "How to fix", with the rule's link.
	advice := " The firewall rules API is past its end of life (2025-06-15): recreate the rule as a custom rule."
	in := reports.Input{AsOf: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), Counts: reports.Counts{ZonesScanned: 2}}
	for _, z := range []struct{ zone, rule string }{{"example.com", "block bots"}, {"example.org", "allow office"}} {
		in.Findings = append(in.Findings, scanner.Finding{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
			Message: `Firewall rule "` + z.rule + `" is active.` + advice, Source: scanner.SourceLive,
			ZoneID: "id-" + z.zone, ZoneName: z.zone, Resource: scanner.Resource{Kind: "firewall_rule", Name: z.rule},
			EndOfLife: "2025-06-15", DocURL: "https://example.invalid/firewall-rules",
		})
	}
	rep, err := reports.New("table", reports.Options{Color: false, Width: 100})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout, reports.NewReport(in)); err != nil {
		panic(err)
	}
	// Output:
	// Zone example.com (id-example.com)
	//   error    firewall-rules, end of life 2025-06-15
	//     Firewall rule "block bots" is active.
	//
	// Zone example.org (id-example.org)
	//   error    firewall-rules, end of life 2025-06-15
	//     Firewall rule "allow office" is active.
	//
	// Rules hit:
	// ERROR  WARNING  NOTICE  RULE            TITLE
	// ──────────────────────────────────────────────────────────
	//     2        -       -  firewall-rules  Firewall rules API
	//
	// How to fix (said once per rule, not under each finding):
	//   firewall-rules: The firewall rules API is past its end of life (2025-06-15): recreate the rule as
	//     a custom rule.
	//     https://example.invalid/firewall-rules
	//
	// 2 zones scanned, 2 errors, 0 warnings, 0 notices, 0 zones failed
}

func Example_tableNarrow() {
	rep, err := reports.New("table", reports.Options{Width: 60})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout, exampleReport()); err != nil {
		panic(err)
	}
	// Output:
	// Zone example.com (z1)
	//   error    firewall-rules, end of life 2025-06-15
	//     Firewall rule "block bots" uses the retired firewall
	//       rules API.
	//   notice   zone-setting-brotli
	//     The brotli setting is always on now; remove it from
	//       automation.
	//
	// Rules hit:
	// FINDINGS   RULE
	// ────────────────────────────────────────────────────────────
	// 1 error    firewall-rules
	//            Firewall rules API
	// 1 notice   zone-setting-brotli
	//            Brotli setting
	//
	// 1 zone scanned, 1 error, 0 warnings, 1 notice,
	// 0 zones failed
}

func Example_tsv() {
	// What `sunset scan | cut -f2` reads: the table format with Plain set writes the same.
	rep, err := reports.New("table", reports.Options{Plain: true})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout, exampleReport()); err != nil {
		panic(err)
	}
	// Output:
	// severity	rule_id	zone	resource_kind	resource_id	path	line	column	message
	// error	firewall-rules	example.com	firewall_rule	r1	-	-	-	Firewall rule "block bots" uses the retired firewall rules API.
	// notice	zone-setting-brotli	example.com	zone_setting	brotli	-	-	-	The brotli setting is always on now; remove it from automation.
}

func ExampleParseFormatFlag() {
	for _, v := range []string{"json", "json:out/report.json", "table:-", `json:C:\reports\out.json`, "yaml"} {
		spec, err := reports.ParseFormatFlag(v)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%s -> format %s, path %q, stdout %v\n", v, spec.Format, spec.Path, spec.Stdout())
	}
	// Output:
	// json -> format json, path "", stdout true
	// json:out/report.json -> format json, path "out/report.json", stdout false
	// table:- -> format table, path "-", stdout true
	// json:C:\reports\out.json -> format json, path "C:\\reports\\out.json", stdout false
	// error: unknown format "yaml" (known formats: csv, github, gitlab, html, json, junit, line, markdown, sarif, table, tsv)
}
