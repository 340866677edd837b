// Package repo checks configuration repositories (Terraform, JSON/YAML exports, scripts and
// any other text) for deprecated API usage, producing the same scanner.Finding as the live
// scan with a file Location. It is the engine of `sunset check`.
//
// # Sources
//
// Check walks files and directories on a bounded pool (sourcegraph/conc), skipping .git,
// .terraform, node_modules and vendor, what .gitignore files (and .git/info/exclude) ignore,
// files outside --include and inside --exclude (gitignore-syntax globs), symbolic links (not
// followed, as git stores them as links, so link cycles cannot loop), FIFOs, sockets and
// devices (never waited on) and binary files (see binary.go: a NUL in the first 8,000
// bytes, git's rule, unless the name, a #! line or mostly text says otherwise; a binary that
// may be run as a script is an error). Every file skipped so is listed, with why, in
// Result.Skipped, which every report names. Files over MaxFileSize are reported as errors and
// not read. A file named explicitly is always checked. Each file is then read by kind:
//
//   - Terraform (.tf, .tfvars and Terragrunt's .hcl: hashicorp/hcl/v2 native syntax;
//     .tf.json, .tfvars.json: JSON syntax): resource types the catalog lists (match.terraform.resources, among them
//     cloudflare_zone_settings_override, which is the bulk zone settings endpoint as a
//     resource), attributes (match.terraform.attributes, a dotted path through blocks,
//     dynamic blocks' content, object attributes and lists of objects, with an optional
//     `when` such as type=SRV that a literal other than SRV makes false and a variable leaves
//     possible), the per-setting resource cloudflare_zone_setting whose setting_id is a
//     deprecated setting (waf included), and Rules language expressions
//     (cloudflare_filter.expression, cloudflare_ruleset.rules[*].expression). Values outside
//     resources are read too (see tfvalues.go): module arguments, a resource's and its
//     dynamic blocks' for_each, locals, variable defaults, tfvars and Terragrunt inputs hold
//     records (SRV data fields when the type is or may be SRV) and rules (an expression with
//     an action, or in a list under a key ending in "rules" or "filters"). Object and list
//     values built by a function call or a condition (tomap({...}), merge, flatten,
//     c ? a : b) are read as the values they hold.
//     Locations are the block's or attribute's exact range.
//   - JSON and YAML: API objects recognised by shape anywhere in a document (see shapeRules),
//     rules of any tool (an "expression" with an "action", or in a list under a key ending in
//     "rules" or "filters": Ansible variables, Pulumi YAML, rule profiles, and the expressions
//     a rule holds in its other members, see shapeRules), rule objects that a script of the
//     same repository posts to the filters or firewall rules API (see postedRules), and the deprecated Terraform
//     resource types as Pulumi YAML (type cloudflare:index:NAME) or Crossplane manifests
//     (kind NAME) write them.
//   - Expression lists: a text file of Rules language expressions, one a line or several
//     lines each between blank lines (.txt, .expr, .list, .rules, .filter, or an extension
//     sunset does not know as code, markup or configuration, or none; not a script starting
//     with #!, see listFile). Every line is an expression position.
//   - Program source (Go, Python, JavaScript/TypeScript, PHP, Ruby, shell, Elixir: kinds, by
//     extension or a #! line): read by the language's reader under scanner/repo/code into a
//     code.File (string values folded with holes, calls, imports, definitions), then matched
//     by one detector (codeDetector): paths the code builds, whole or as fragments relative to
//     a base (only with evidence that the file or call talks to the API), SDK calls, services
//     and resource types of the libraries in the catalog's sdks.yaml, zone setting ids handed
//     to SDK setting calls or to a project's settings helper (code_settings.go), deprecated
//     fields in expression strings (a string holding a JSON document read as a .json file is),
//     SRV records built as literals (code_records.go). Its hits give way to the
//     text matcher's of the same rule on the same lines, so findings reported before code was
//     read keep their fingerprints.
//   - Every file, including the above: deprecated endpoint calls (method and path pattern of
//     the catalog) and the catalog's text patterns (see textMatcher).
//
// The detectors are one list (Checker.detectors) behind one interface, and the kinds one
// table (kinds): a new kind of file is a registration, not an edit of the check.
//
// Expressions of deprecated objects (filters, firewall rules) that are literal are parsed and
// type-checked (scanner/expr, scanner/expr/celcheck): errors become RuleExpression warnings,
// deprecated fields (match.expression_fields) findings of their catalog rule. Expressions
// holding interpolation (${...}, %{...}, Go fmt verbs such as %[1]s, heredoc templates) are
// RuleExpression notices saying they were not checked, never syntax errors; their deprecated
// fields are still found by a conservative field scan. Expressions of the replacement
// (cloudflare_ruleset rules, ruleset rule objects, other tools' rules) are only searched for
// deprecated fields. Fields are found by expr.ScanFields: the parse tree's, and past a syntax
// error every dotted name outside string literals, so a field in a string ("ip.geoip.asnum")
// or a YAML comment is not one. An expression is reported once per rule and line: on the
// line of the field when the expression is written over several lines (a heredoc, a YAML
// block, plain or quoted scalar, a list file), at the expression otherwise (a JSON string
// with \n escapes included).
//
// A Terraform, JSON or YAML file that does not parse yields a RuleParse notice (the file was
// read; only its structured checks were skipped). A file that is valid as far as sunset read
// it but nests deeper than its bounds (500 levels of JSON or YAML, yaml.v3's own 10,000 and
// its aliasing limit; Terraform nested past 1,000 levels or with over 10,000 operators in one
// expression, which hclsyntax's recursion would not survive: see hclTooDeep; program source
// a reader stops following, code.File.Unread: Python expressions past 1,000 levels,
// JavaScript past 2,000, Go past go/parser's 100,000), or whose structure holds more tokens
// than sunset reads at once (structureBounds: minified and generated files), yields the
// notice and is also a run error (What "parse"): a file sunset cannot fully read makes the
// run incomplete (exit 4) unless it is excluded, so it never passes a gate silently. Text checks run over every file either way. Structured parsing only happens for files
// that can hold a finding: for Terraform, a file naming a deprecated resource type, or a
// resource kind together with a deprecated attribute's path (cloudflare_record, data,
// service), and so on (tfRules.literalNeeds), or holding what a value outside resources needs
// (data, service and srv or proto; expression and a deprecated field: valueLiteralNeeds);
// for JSON and YAML, a file holding one of the keys the shapes look for; for an expression
// list, a deprecated field name.
//
// # Findings and fingerprints
//
// Severity is the catalog entry's as of Options.AsOf; an entry not yet deprecated on that day
// produces nothing. The fingerprint is scanner.Fingerprint("file", rule, path, address),
// where path is the path as displayed (the root as given joined with the path below it) and
// address says what inside the file: a Terraform resource address (cloudflare_record.sip.data.service),
// a value's path (module.dns.records.sip.data.service, local.rules[0].expression), a JSON
// pointer (/result/0), "expression list" for a list file, the method, route and path text of
// a call, or for program source the folded value of a path ("code GET /zones/:zone_id/filters
// /zones/{…}/filters"), the SDK and call ("sdk cloudflare-go FirewallRules api.FirewallRules")
// or the setting id; a deprecated field adds "field NAME" (on a later line of the same
// expression, a field no earlier line named, so the first finding of each field keeps its
// address). It is
// line-independent; a repeated address gets an occurrence number (#2).
//
// # Many findings in one file
//
// One file reports at most MaxFindingsPerRule (100) findings of one rule one by one, counting
// suppressed and unsuppressed findings apart. The rest become one finding of the rule, at the
// first of them, with the highest of their severities (so the gate sees them), a message
// "N more findings of this rule in this file past the first 100, at lines …" and the
// fingerprint of rule, path and "more" ("more suppressed" for suppressed ones). A generated
// or hostile file with a finding on every line (5 MB of header pairs: 233,000 findings) would
// otherwise hold gigabytes through every report.
//
// # Files sunset wrote
//
// A file sunset itself wrote is not checked: a baseline, a report in any format, a snapshot,
// plan.json, plan.md or a file of the plan's Terraform (RecogniseOutput). Each is told by its
// first bytes, where its writer puts what makes it recognisable (the JSON report's and
// SARIF's tool name, the baseline's and GitLab report's members in their order, the CSV and
// TSV headers, the Markdown headline, "Generated by sunset plan."), never by its name, so a
// renamed report is still known and a configuration file that merely names sunset is still
// checked. Result.Outputs lists them (they are in Result.Skipped too); one over the size limit is
// told from its head and skipped too, not reported as too large. Standard input and files
// named explicitly are judged the same way. Without this, a baseline or report kept in the
// repository would be reported by the next run: it quotes every finding it records.
//
// # Files sunset reads
//
// Files are read through scanner/safefile: regular files only (a FIFO, device or directory
// named on the command line is a run error, never read or waited on), bounded by the size
// limit. .gitignore and .git/info/exclude are not read through a symbolic link (as git does
// not); one that is a link, not a regular file or too large is not used and is reported as a
// run error naming it (--no-gitignore skips ignore files).
//
// # Inline suppressions
//
// In any comment style (#, //, /* */, <!-- -->, --, ;):
//
//	sunset:ignore RULE_ID[,RULE_ID...] [until=YYYY-MM-DD] reason
//
// RULE_ID may be "all". A comment after code applies to its own line; a comment on a line of
// its own applies to the next line that is neither blank nor a comment (so several can stack)
// and, when a block or object starts there, to every finding inside it. Suppressed findings
// are kept, marked Suppressed with SuppressedBy "inline: reason"; when several cover a finding,
// the first in the file names it. A comment's text ends at the end of its line, a closing
// --> or */, or the next sunset:ignore. Finding and applying them is linear in the file. Problems are findings of
// RuleSuppression (notice): no reason (the suppression still applies), an expired until=
// (it no longer applies; until is inclusive), an invalid until= date or no rule id (it does
// not apply), an unknown rule id (reported; the known ids still apply).
//
// # Configuration and baseline
//
// Config is .sunset.yaml (see its doc); Policy applies, after all files are checked, severity
// overrides (none drops a rule), disabled rules (suppressed, SuppressedByConfig) and a
// Baseline (suppressed, SuppressedByBaseline). Baseline entries that match no finding are
// returned as stale, not reported as findings: the CLI prints them on stderr, because a fixed
// finding must not fail a gate.
package repo
