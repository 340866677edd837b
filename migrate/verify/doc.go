// Package verify checks a migration plan against the account it was built from: for every
// zone, the old firewall rules and the plan's custom rules are evaluated on the same
// generated requests (package ruleeval: each list with its own semantics), and every
// previous-version rate limit is compared with the rate limiting rule that replaces it.
// The result is the zone's migrate.Verification: requests tried, decisions that differ,
// and for each kind of difference one witness request and the rules involved.
//
// The old list is the zone's firewall rules in the service's order, after the custom rules
// the entry point already holds that translate no firewall rule (the plan keeps those first;
// how the two ran together is not documented, which a note says). The new list is the
// plan's custom rules target, or the entry point as it is when the plan leaves it alone.
// Requests come from every expression of both lists, alone and together; a zone with many
// rules gets fewer per rule (at least 4), within a budget of about 8,000 requests.
//
// A difference is declared when the plan says so itself: a firewall rule the plan keeps
// (a firewall-rule.keep step) or a zone note "declared difference:" names a rule matched.
//
// Rate limits: the old match (methods, schemes, url pattern, url bypasses) is evaluated
// directly and the rule's expression with CEL, on requests generated from the expression,
// whose full URI is made of their scheme, host, path and query. The url pattern is read as
// the support article 'Why doesn't my Rate Limiting rule match a request?' documents the old
// matcher: host and path wildcards, case-insensitive, a request's query ignored, a bare host
// meaning its homepage, a pattern with a scheme, query string or anchor matching nothing (the
// plan creates such a rule disabled and leaves such a bypass out). What requests cannot
// exercise or the rule does not carry over unchanged (threshold, period, timeout, action,
// counting per IP, response conditions, bypasses other than urls) is listed as not exact.
//
// Verification proves agreement on the generated requests only: it is a search for
// counter-examples, not a proof of equivalence.
package verify
