package reports_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
)

// checkReport is a small `sunset check` run: a Terraform file with a retired resource and a
// setting suppressed by an inline comment.
func checkReport() *reports.Report {
	return reports.NewReport(reports.Input{
		Version: "0.1.0",
		AsOf:    time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC),
		Source:  reports.Source{Kind: reports.SourceFiles, Paths: []string{"."}},
		Findings: []scanner.Finding{
			{
				RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
				Message:   "cloudflare_firewall_rule.block uses the retired firewall rules API.",
				Source:    scanner.SourceFile,
				Resource:  scanner.Resource{Kind: "cloudflare_firewall_rule", Name: "cloudflare_firewall_rule.block"},
				Location:  &scanner.Location{Path: "infra/waf.tf", StartLine: 12, StartColumn: 1, EndLine: 18, EndColumn: 2},
				EndOfLife: "2025-06-15", Replacement: "custom rules", Fingerprint: "3f1a",
			},
			{
				RuleID: "zone-setting-brotli", Severity: scanner.SeverityNotice, Title: "Brotli setting",
				Message:     "brotli is always on now; remove the setting.",
				Source:      scanner.SourceFile,
				Resource:    scanner.Resource{Kind: "cloudflare_zone_settings_override", Name: "cloudflare_zone_settings_override.main"},
				Location:    &scanner.Location{Path: "infra/zone.tf", StartLine: 4},
				Fingerprint: "77c0", Suppressed: true, SuppressedBy: "inline comment",
			},
		},
		Counts: reports.Counts{FilesScanned: 2},
		FailOn: scanner.SeverityError,
	})
}

// writeFormat writes r to standard output in format.
func writeFormat(format string, r *reports.Report) {
	rep, err := reports.New(format, reports.Options{})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout, r); err != nil {
		panic(err)
	}
}

func Example_sarif() {
	writeFormat("sarif", checkReport())
	// Output:
	// {
	//   "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
	//   "version": "2.1.0",
	//   "runs": [
	//     {
	//       "tool": {
	//         "driver": {
	//           "name": "sunset",
	//           "version": "0.1.0",
	//           "informationUri": "https://github.com/sunsetscan/sunset",
	//           "rules": [
	//             {
	//               "id": "firewall-rules",
	//               "name": "FirewallRules",
	//               "shortDescription": {
	//                 "text": "Firewall rules API"
	//               },
	//               "fullDescription": {
	//                 "text": "Firewall rules API."
	//               },
	//               "help": {
	//                 "text": "Firewall rules API.\nEnd of life: 2025-06-15.\nReplacement: custom rules.",
	//                 "markdown": "Firewall rules API.\n\n**End of life:** 2025-06-15\n\n**Replacement:** custom rules"
	//               },
	//               "defaultConfiguration": {
	//                 "level": "error"
	//               },
	//               "properties": {
	//                 "tags": [
	//                   "deprecation"
	//                 ],
	//                 "endOfLife": "2025-06-15",
	//                 "replacement": "custom rules"
	//               }
	//             },
	//             {
	//               "id": "zone-setting-brotli",
	//               "name": "ZoneSettingBrotli",
	//               "shortDescription": {
	//                 "text": "Brotli setting"
	//               },
	//               "fullDescription": {
	//                 "text": "Brotli setting."
	//               },
	//               "help": {
	//                 "text": "Brotli setting.",
	//                 "markdown": "Brotli setting."
	//               },
	//               "defaultConfiguration": {
	//                 "level": "note"
	//               },
	//               "properties": {
	//                 "tags": [
	//                   "deprecation"
	//                 ]
	//               }
	//             }
	//           ]
	//         }
	//       },
	//       "invocations": [
	//         {
	//           "executionSuccessful": true
	//         }
	//       ],
	//       "columnKind": "unicodeCodePoints",
	//       "results": [
	//         {
	//           "ruleId": "firewall-rules",
	//           "ruleIndex": 0,
	//           "level": "error",
	//           "message": {
	//             "text": "cloudflare_firewall_rule.block uses the retired firewall rules API."
	//           },
	//           "locations": [
	//             {
	//               "physicalLocation": {
	//                 "artifactLocation": {
	//                   "uri": "infra/waf.tf"
	//                 },
	//                 "region": {
	//                   "startLine": 12,
	//                   "startColumn": 1,
	//                   "endLine": 18,
	//                   "endColumn": 2
	//                 }
	//               }
	//             }
	//           ],
	//           "partialFingerprints": {
	//             "sunset/v1": "3f1a"
	//           }
	//         },
	//         {
	//           "ruleId": "zone-setting-brotli",
	//           "ruleIndex": 1,
	//           "level": "note",
	//           "message": {
	//             "text": "brotli is always on now; remove the setting."
	//           },
	//           "locations": [
	//             {
	//               "physicalLocation": {
	//                 "artifactLocation": {
	//                   "uri": "infra/zone.tf"
	//                 },
	//                 "region": {
	//                   "startLine": 4
	//                 }
	//               }
	//             }
	//           ],
	//           "partialFingerprints": {
	//             "sunset/v1": "77c0"
	//           },
	//           "suppressions": [
	//             {
	//               "kind": "inSource",
	//               "justification": "suppressed by inline comment"
	//             }
	//           ]
	//         }
	//       ]
	//     }
	//   ]
	// }
}

func Example_junit() {
	writeFormat("junit", checkReport())
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="sunset" tests="2" failures="1" errors="0" skipped="1" time="0">
	//   <testsuite name="firewall-rules" tests="1" failures="1" errors="0" skipped="0" time="0" timestamp="2025-07-01T00:00:00">
	//     <properties>
	//       <property name="title" value="Firewall rules API"></property>
	//       <property name="end_of_life" value="2025-06-15"></property>
	//       <property name="replacement" value="custom rules"></property>
	//     </properties>
	//     <testcase name="infra/waf.tf:12: cloudflare_firewall_rule.block" classname="sunset.firewall-rules" time="0" file="infra/waf.tf" line="12">
	//       <failure message="cloudflare_firewall_rule.block uses the retired firewall rules API." type="error"><![CDATA[cloudflare_firewall_rule.block uses the retired firewall rules API.
	//
	// Rule: firewall-rules (Firewall rules API)
	// Severity: error
	// File: infra/waf.tf:12
	// Resource: cloudflare_firewall_rule.block
	// End of life: 2025-06-15
	// Replacement: custom rules
	// Fingerprint: 3f1a]]></failure>
	//     </testcase>
	//   </testsuite>
	//   <testsuite name="zone-setting-brotli" tests="1" failures="0" errors="0" skipped="1" time="0" timestamp="2025-07-01T00:00:00">
	//     <properties>
	//       <property name="title" value="Brotli setting"></property>
	//     </properties>
	//     <testcase name="infra/zone.tf:4: cloudflare_zone_settings_override.main" classname="sunset.zone-setting-brotli" time="0" file="infra/zone.tf" line="4">
	//       <skipped message="suppressed by inline comment"></skipped>
	//     </testcase>
	//   </testsuite>
	// </testsuites>
}

func Example_github() {
	// Live findings have no file: their annotations name the zone and resource instead.
	writeFormat("github", checkReport())
	writeFormat("github", exampleReport())
	// Output:
	// ::error file=infra/waf.tf,line=12,col=1,endLine=18,endColumn=2,title=firewall-rules%3A Firewall rules API::cloudflare_firewall_rule.block uses the retired firewall rules API.%0AEnd of life: 2025-06-15. Replacement: custom rules.
	// sunset: 2 files scanned, 1 error, 0 warnings, 0 notices, 0 files failed, 1 suppressed
	// ::error title=firewall-rules%3A zone example.com%2C firewall_rule block bots::Firewall rule "block bots" uses the retired firewall rules API.%0AEnd of life: 2025-06-15.
	// ::notice title=zone-setting-brotli%3A zone example.com%2C zone_setting brotli::The brotli setting is always on now; remove it from automation.
	// sunset: 1 zone scanned, 1 error, 0 warnings, 1 notice, 0 zones failed
}

func Example_gitlab() {
	writeFormat("gitlab", checkReport())
	writeFormat("gitlab", exampleReport())
	// Output:
	// [
	//   {
	//     "type": "issue",
	//     "check_name": "firewall-rules",
	//     "description": "cloudflare_firewall_rule.block uses the retired firewall rules API. (end of life 2025-06-15)",
	//     "categories": [
	//       "Compatibility"
	//     ],
	//     "severity": "critical",
	//     "fingerprint": "3f1a",
	//     "location": {
	//       "path": "infra/waf.tf",
	//       "lines": {
	//         "begin": 12
	//       }
	//     }
	//   }
	// ]
	// [
	//   {
	//     "type": "issue",
	//     "check_name": "firewall-rules",
	//     "description": "Firewall rule \"block bots\" uses the retired firewall rules API. (end of life 2025-06-15)",
	//     "categories": [
	//       "Compatibility"
	//     ],
	//     "severity": "critical",
	//     "fingerprint": "5d1c",
	//     "location": {
	//       "path": "zone:example.com",
	//       "lines": {
	//         "begin": 1
	//       }
	//     }
	//   },
	//   {
	//     "type": "issue",
	//     "check_name": "zone-setting-brotli",
	//     "description": "The brotli setting is always on now; remove it from automation.",
	//     "categories": [
	//       "Compatibility"
	//     ],
	//     "severity": "info",
	//     "fingerprint": "9e0a",
	//     "location": {
	//       "path": "zone:example.com",
	//       "lines": {
	//         "begin": 1
	//       }
	//     }
	//   }
	// ]
}

func Example_csv() {
	rep, err := reports.New("csv", reports.Options{})
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := rep.Write(&b, exampleReport()); err != nil {
		panic(err)
	}
	// Rows end in CRLF (RFC 4180); shown here with LF.
	fmt.Print(strings.ReplaceAll(b.String(), "\r\n", "\n"))
	// Output:
	// severity,rule_id,title,zone_name,zone_id,account_id,resource_kind,resource_id,resource_name,path,line,column,message,end_of_life,replacement,fingerprint,suppressed
	// error,firewall-rules,Firewall rules API,example.com,z1,a1,firewall_rule,r1,block bots,,,,"Firewall rule ""block bots"" uses the retired firewall rules API.",2025-06-15,,5d1c,false
	// notice,zone-setting-brotli,Brotli setting,example.com,z1,a1,zone_setting,brotli,,,,,The brotli setting is always on now; remove it from automation.,,,9e0a,false
}

func Example_markdown() {
	writeFormat("markdown", exampleReport())
	// Output:
	// ## sunset: 1 error, 0 warnings, 1 notice
	//
	// As of 2025-07-01 · demo scan of http://127.0.0.1:8787/client/v4 · 1 zone scanned, 1 error, 0 warnings, 1 notice, 0 zones failed.
	//
	// **Gate failed:** findings at or above error (`--fail-on error`).
	//
	// ### Rules
	//
	// | Rule | Title | Severity | End of life | Replacement | Findings |
	// | --- | --- | --- | --- | --- | ---: |
	// | `firewall-rules` | Firewall rules API | error | 2025-06-15 | - | 1 |
	// | `zone-setting-brotli` | Brotli setting | notice | - | - | 1 |
	//
	// ### Findings
	//
	// <details>
	// <summary>Zone example.com (z1) · 2 findings</summary>
	//
	// | Severity | Rule | Resource | Message | End of life |
	// | --- | --- | --- | --- | --- |
	// | error | `firewall-rules` | firewall\_rule block bots | Firewall rule "block bots" uses the retired firewall rules API. | 2025-06-15 |
	// | notice | `zone-setting-brotli` | zone\_setting brotli | The brotli setting is always on now; remove it from automation. | - |
	//
	// </details>
}
