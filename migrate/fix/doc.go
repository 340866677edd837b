// Package fix rewrites a Terraform repository off the deprecated resources, in the
// repository's own terms: its addresses, modules, variables, formatting and comments. It is
// the counterpart of migrate/apply: apply alone writes to accounts, fix alone writes the
// user's files (through scanner/safefile, only when asked), and a run without --write
// changes nothing.
//
// Firewall rules and their filters (paired by the filter_id reference) become one
// cloudflare_ruleset per zone and module, phase http_request_firewall_custom, in the order
// the old rules ran (priority, then action precedence). Rules written in literals are
// translated as `sunset plan` translates them (package customrules) and written
// as plan writes them (migrate/terraform); rules driven by for_each, count or variables stay
// driven by the same data through HCL that maps actions and fields. Either way, when the
// values are known the new rules are evaluated against the old on generated requests
// (package verify) and the result says so; when they are not, it says what was not proven.
// What cannot be carried over safely stays as it is with a comment saying what to decide.
//
// The other deprecated usages are rewritten as `sunset plan` maps them, each in its own file:
// rate limits into a ruleset of phase http_ratelimit per zone, within the zone's plan and
// quota, the variables and locals they read kept as references (ratelimit.go, holes.go);
// the retired settings out of cloudflare_zone_settings_override and cloudflare_zone_setting,
// mobile_redirect into a single redirect rule (zonesettings.go), and for provider v5 the
// override into one cloudflare_zone_setting per setting the API has, under the conditions the
// override set it (settings_v5.go, settingentries.go, settingids.json); the previous WAF, and
// its switch the zone setting waf, into the managed rules entry point (waf.go, wafswitch.go);
// pool notification_email and
// SRV data.service/proto/name dropped (pool.go, srv.go); legacy tunnels and Access bookmarks
// renamed to their replacements (renames.go).
//
// `sunset fix --check` fails while there is something to rewrite, or while `sunset check`
// reports in the Terraform a usage fix handles that no `# sunset fix:` comment explains
// (gate.go).
//
// The old resources leave the state without being destroyed: removed blocks where they were
// for provider v4; for v5, a state clean-up script to run on v4 before the upgrade, because
// v5 cannot read their v4 state. Write writes all of a root module or none of it (units.go),
// so that no state step runs for a configuration that was not rewritten; files keep their
// line ends and byte order mark (encoding.go). What fix writes is checked against the
// target provider's schema, its references renamed to the target's names (targetrefs.go).
package fix
