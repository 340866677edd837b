// Package fix rewrites a Terraform repository off the deprecated resources, in the
// repository's own terms: its addresses, modules, variables, formatting and comments. It is
// the counterpart of migrate/apply: apply alone writes to accounts, fix alone writes the
// user's files (through scanner/safefile, only when asked), and a run without --write
// changes nothing.
//
// Firewall rules and their filters (paired by the filter_id reference) become one
// cloudflare_ruleset per zone and module, phase http_request_firewall_custom, in the order
// the old rules ran (priority, then action precedence). Rules whose values the repository
// holds are translated as `sunset plan` translates them (package customrules) and written
// as plan writes them (migrate/terraform); rules driven by for_each, count or variables stay
// driven by the same data through HCL that maps actions and fields. Either way, when the
// values are known the new rules are evaluated against the old on generated requests
// (package verify) and the result says so; when they are not, it says what was not proven.
// What cannot be carried over safely stays as it is with a comment saying what to decide.
//
// The old resources leave the state without being destroyed: removed blocks where they were
// for provider v4; for v5, a state clean-up script to run on v4 before the upgrade, because
// v5 cannot read their v4 state.
package fix
