// Package customrules translates a zone's firewall rules (deprecated API:
// rules + filters) into custom rules, the rules of the zone's entry-point
// ruleset of phase http_request_firewall_custom.
//
// # Expressions
//
// TranslateExpression parses with scanner/expr, renames the deprecated field
// names (ip.geoip.* -> ip.src.*, from the field catalogue's renamed_to),
// prints the tree in canonical form, and checks it with scanner/expr/celcheck for
// the zone's plan in phase http_request_firewall_custom. Diagnostics point
// into the ORIGINAL expression. An expression that does not parse gives no
// rule and one "parse" error per syntax error (line:column; Diagnostic.Render
// draws the caret). An expression with template placeholders
// (expr.IsTemplated) that does not parse is reported as "templated", not as
// syntax errors. Plan gates are errors when the plan is known: regex
// (matches, ~) below Business ("plan-regex"), fields and functions above the
// plan ("plan-field", "plan-function"), and the log action below Enterprise
// ("plan-log").
//
// # cf.threat_score
//
// The score is always 0 now, so a condition on it silently changed meaning:
// "cf.threat_score gt 10" never matches, "cf.threat_score lt 10" always
// does. Decision: never translate it silently. Each comparison gets an
// error diagnostic saying its value at 0, and one more says what the whole
// expression does now (never matches, matches every request, or matches as
// if written without the comparison, printed). The custom rule IS produced,
// with the expression unchanged, but DISABLED (enabled false, said in
// Changes), and it stays in Result.Ruleset: the PUT body is accepted by the
// API, cannot start blocking or allowing everything, and the rule is visible
// in the dashboard where someone must rewrite and enable it. The errors make
// the translation invalid (the CLI exits 1), so it cannot be missed.
//
// # Rules
//
//	firewall rule                       custom rule
//	block, challenge, js_challenge,     same action
//	managed_challenge, log
//	allow                               skip, action_parameters {"ruleset":"current"}
//	bypass + products                   skip, {"products":[same names]} plus, derived,
//	                                    {"phases":[...]}: waf -> http_request_firewall_managed,
//	                                    rateLimit -> http_ratelimit (those products address only
//	                                    the previous versions)
//	bypass E directly followed by       one skip with both parameters (see below)
//	allow E (same canonical expression,
//	same paused)
//	paused                              enabled = !paused (the filter's paused is ignored)
//	description                         same; the filter's when the rule has none; a merged
//	                                    pair joins both with " + "; cut to 500 characters
//	ref                                 same; the firewall rule id when there is none, so a
//	                                    later run recognises what it already migrated
//
// Logging: skip rules log matching requests by default. Decision: keep the
// default (no "logging" member), so the migrated allow/bypass rules show up
// in security events while the migration is verified; every skip rule says
// so in its Changes, with how to turn it off.
//
// Idempotence: a rule of Options.Existing whose ref equals a firewall rule's
// id (or its non-empty ref) is that rule's translation, made by an earlier
// run: it is not added again (said in Changes; RuleTranslation.Rule is the
// existing rule and Index its position).
//
// # Order
//
// Firewall rules ran by ascending priority, null last, and at equal priority
// by action precedence log, bypass, allow, challenge, managed_challenge,
// js_challenge, block; log and bypass did not stop evaluation, the others
// did (allow therefore outranked every later rule). Custom rules run in list
// order; log and skip of products or phases do not stop evaluation, skip of
// the current ruleset and block/challenge do. The two semantics match action
// by action, so the new list is the old evaluation order (input order breaks
// the remaining ties) and evaluating it gives the same outcome, rule for
// rule. The equivalence tests check this on generated requests.
//
//	case                                    list                                 outcome
//	priorities, null last, precedence       the old evaluation order             same
//	log (non-terminating)                   log (non-terminating)                same
//	log after a terminating rule            kept after it; info "order"          same: requests the earlier
//	                                                                             rule stopped were not logged
//	                                                                             before either
//	bypass (non-terminating)                skip products/phases                 same
//	allow (terminating)                     skip ruleset current                 same
//	bypass E, allow E neighbours once       one merged skip at their place       same: within one (priority,
//	equal (priority, action) groups are                                          action) group order cannot
//	reordered                                                                    change the outcome
//	bypass E ... X ... allow E              two rules; info "order"              same (merging would move X)
//	allow E before bypass E                 two rules; info "order": the         same
//	                                        bypass never takes effect
//	existing custom rules                   first, before the migrated ones;     unknown: the old interplay of
//	                                        info "order" when one of them        both lists is not documented
//	                                        stops evaluation
//	unparsable, unknown action, plan or     left out of Result.Ruleset;          differs: requests it matched
//	type errors, over the quota             error on the rule                    reach the later rules
//	cf.threat_score                         disabled; error "threat-score"       differs (see above)
//
// # Output
//
// Result.Ruleset is the full rules list of
// PUT /zones/:id/rulesets/phases/http_request_firewall_custom/entrypoint:
// Existing first, then every translated rule the API would accept, in order.
// Quota: when Existing plus the new rules exceed the plan's custom-rule quota
// (free 5, pro 20, business 100, enterprise 1000), the last new rules are
// left out; a set-level "quota" error names them and each carries one too.
package customrules
