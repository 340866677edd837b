// Package ruleeval evaluates a zone's firewall rules and custom rules on requests with the
// semantics each had, and generates the requests to evaluate them on. It is the one home of
// those semantics: `sunset verify` (package migrate/verify) and the translator's equivalence
// tests use it. It depends on neither migrate nor customrules, so both can test with it.
//
// Firewall rules (domain-facts): ascending priority, no priority last, equal priorities by
// action precedence log, bypass, allow, challenge, managed_challenge, js_challenge, block;
// paused rules do not run (a filter's own paused is ignored); log records and goes on,
// bypass skips its products and goes on; allow ends evaluation (it outranked every later
// rule), as does every other action.
//
// Custom rules: list order; disabled rules do not run; log records and goes on; skip of
// products or phases skips and goes on; skip of the current ruleset ends evaluation as allow
// did; every other action ends it.
//
// A Decision is the action that ended evaluation, the products skipped on the way and
// whether a log rule matched. Assumptions, the same for both lists: an expression that does
// not type-check never matches; a named list ($name) holds 10.0.0.0/8, 192.0.2.0/24 and
// 198.51.100.0/25 (a snapshot holds no list contents); cf.threat_score is 0 in every
// generated request, as it always is now.
package ruleeval
