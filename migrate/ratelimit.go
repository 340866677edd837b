package migrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// RateLimitingQuota is the number of new rate limiting rules a plan allows (every rule of
// the http_ratelimit phase counts): free 1, pro 2, business 5, enterprise 5 (100 with the
// advanced rate limiting add-on, which the API does not show); 0 when the plan is unknown.
func RateLimitingQuota(plan string) int { return inventory.RateLimitingRulesQuota(plan) }

// RateLimitRef is the ref a migrated rate limit's rule carries, so a later run recognises it.
func RateLimitRef(id string) string { return inventory.RateLimitRef(id) }

func normalizeList(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x = strings.ToUpper(strings.TrimSpace(x)); x != "" && !contains(out, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// rateLimitTranslator plans previous-version rate limits -> rate limiting rules: the rules
// that fit the (lower) new quota are created, verified, and then the old rate limits
// deleted; the others stay, each with a manual step saying why and what to do.
type rateLimitTranslator struct{}

func (rateLimitTranslator) translate(b *builder) {
	z := b.z
	if !b.has(vocab.RateLimitingV1) || len(z.RateLimits) == 0 {
		return
	}
	plan := strings.ToLower(z.Zone.Plan.LegacyID)
	m := &rateLimitMigration{b: b, plan: plan, entry: entrypoint(z, vocab.PhaseRateLimiting), quota: RateLimitingQuota(plan)}
	s := m.sortRateLimits()
	fit, over := s.fitQuota(m.quota, len(m.existing()))
	notes := m.quotaNotes(s, len(fit), len(over))
	b.note(notes...)
	verify := m.createRules(fit, notes)
	if verify == "" && len(s.already) > 0 {
		verify = b.verifyEarlier(rateLimitRuleKinds,
			"The rate limits deleted below already have their rules (an earlier run's, found by ref rate_limit:ID, or rules that do the same, found by what they do).",
			"every rate limit deleted below has its rule in place: one whose ref is rate_limit:<its id>, or one that does the same")
	}
	m.deleteRateLimits(append(fit, s.already...), verify)
	m.keepRateLimits(append(s.blocked, over...))
}

// rateLimitMigration is the previous-version rate limits of one zone on their way to rate
// limiting rules.
type rateLimitMigration struct {
	b     *builder
	plan  string
	entry *inventory.Ruleset // the rate limiting entry point; nil when none
	quota int
}

// existing are the rules of the rate limiting entry point.
func (m *rateLimitMigration) existing() []inventory.RulesetRule { return rulesOf(m.entry) }

// quotaNotes say when the new quota is too small for the old rate limits.
func (m *rateLimitMigration) quotaNotes(s rateLimitSort, fit, over int) []string {
	existing := len(m.existing())
	if m.quota <= 0 || existing+len(s.cands)+len(s.already) <= m.quota {
		return nil
	}
	return []string{fmt.Sprintf("the %s plan allows %d rate limiting rules (fewer than previous-version rate limits): %d existing, %d fit, %d do not", m.plan, m.quota, existing, fit, over)}
}

// createRules plans the rules of the rate limits that fit, and their check; it returns the
// verify step's id ("" when none fit).
func (m *rateLimitMigration) createRules(fit []rlTranslation, notes []string) string {
	var rules []inventory.RulesetRule
	var diffs []Diff
	risk := RiskMedium
	for _, t := range fit {
		rules = append(rules, t.rule)
		diffs = append(diffs, rlDiff(t))
		if t.risk == RiskHigh {
			risk = RiskHigh
		}
	}
	return m.b.changeRuleset(rulesetChange{
		kinds: rateLimitRuleKinds, existing: m.entry,
		back: rules, what: "rate limiting rule", whats: "rate limiting rules",
		risk: risk, derived: true,
		reason: "Previous-version rate limiting is deprecated; each rate limit becomes a rate limiting rule (fields mapped one to one where documented; the steps marked derived are sunset's own decisions where no official mapping exists).",
		note:   strings.Join(notes, "\n"), diffs: diffs,
	})
}

// rateLimitSort is the zone's rate limits with a finding, sorted by what the plan can do.
type rateLimitSort struct {
	cands   []rlTranslation // can become rules, enabled ones first (they protect something)
	already []rlTranslation // migrated by an earlier run (a rule carries their ref)
	blocked []rlTranslation // cannot become a rule on this plan
}

// fitQuota splits the candidates into those that fit the quota beside the existing rules
// (all when the quota is unknown) and those over it.
func (s rateLimitSort) fitQuota(quota, existing int) (fit, over []rlTranslation) {
	room := -1
	if quota > 0 {
		room = max(0, quota-existing)
	}
	for _, t := range s.cands {
		if room < 0 || len(fit) < room {
			fit = append(fit, t)
		} else {
			over = append(over, t)
		}
	}
	return fit, over
}

// sortRateLimits translates the zone's rate limits with a finding and sorts them by what
// the plan can do. A rate limit is migrated already when a rule of the entry point carries
// its ref (an earlier run), or does what its rule would do (package meaning: written by
// someone else); each existing rule stands for one rate limit at most.
func (m *rateLimitMigration) sortRateLimits() rateLimitSort {
	existing := m.existing()
	byRef := map[string]int{}
	for i, r := range existing {
		if _, dup := byRef[r.Ref]; r.Ref != "" && !dup {
			byRef[r.Ref] = i
		}
	}
	same := meaning.NewIndex(len(existing), func(i int) meaning.Key { return meaning.Rule(vocab.PhaseRateLimiting, existing[i]) })
	var s rateLimitSort
	var rest []rlTranslation
	for _, rl := range m.b.z.RateLimits {
		if len(m.b.peekFindings(vocab.RateLimitingV1, vocab.KindRateLimit, rl.ID)) == 0 {
			continue
		}
		t := translateRateLimit(rl, m.plan)
		if k, ok := byRef[t.rule.Ref]; ok && !same.Claimed(k) {
			same.Reserve(k)
			s.already = append(s.already, t)
			continue
		}
		rest = append(rest, t)
	}
	for _, t := range rest {
		switch k, ok := same.Claim(meaning.Rule(vocab.PhaseRateLimiting, t.rule)); {
		case ok && len(t.blocked) == 0:
			m.b.note(fmt.Sprintf("already there: rate limit %s is done by rate limiting rule %s (ref %q), which does the same (same action, parameters, enabled, expression and counting): no rule is created for it", named(t.old.Description, t.old.ID), named(existing[k].Description, existing[k].ID), existing[k].Ref))
			s.already = append(s.already, t)
		case len(t.blocked) > 0:
			s.blocked = append(s.blocked, t)
		default:
			s.cands = append(s.cands, t)
		}
	}
	sort.SliceStable(s.cands, func(i, j int) bool { return !s.cands[i].old.Disabled && s.cands[j].old.Disabled })
	return s
}

func rlDiff(t rlTranslation) Diff {
	return Diff{Label: "rate limit " + named(t.old.Description, t.old.ID), Old: t.oldText, New: rlNewText(t.rule), Changes: t.changes}
}

// deleteRateLimits disables, then deletes, each rate limit whose rule is in place, after the
// check: the disabled rate limit is the way back while traffic is watched (as a paused
// firewall rule is), and the apply reads the replacements again after each of the two.
func (m *rateLimitMigration) deleteRateLimits(done []rlTranslation, verify string) {
	for _, t := range done {
		id, label, dep := t.old.ID, named(t.old.Description, t.old.ID), verify
		path := zonePath(m.b.z.Zone.ID, "rate_limits", id)
		note := ""
		if why := unwritableRateLimit(t.old); why != "" {
			note = "It is deleted without being disabled first: a PUT that disables it would be refused, as " + why + "."
		} else if !t.old.Disabled {
			dep = "rate-limit.pause:" + id
			m.b.add(phasePause, Step{
				ID: dep, Kind: KindRateLimitPause, Change: ChangeUpdate,
				Method: "PUT", Path: path, Body: disabledRateLimitBody(t.old),
				DependsOn: []string{verify}, Risk: RiskMedium,
				Title:  "Disable rate limit " + label,
				Reason: "Its rate limiting rule is in place; disabling first leaves a way back (enable it again) while traffic is watched, before the rate limit is deleted.",
				Note:   "A PUT replaces the whole rate limit: the body is the rate limit as scanned, with disabled: true.",
			})
		}
		m.b.add(phaseOldDelete, Step{
			ID: "rate-limit.delete:" + id, Kind: KindRateLimitDelete, Change: ChangeDelete,
			Method: "DELETE", Path: path, DependsOn: []string{dep},
			Resolves: m.b.findings(vocab.RateLimitingV1, vocab.KindRateLimit, id), Risk: RiskMedium,
			Title:  "Delete rate limit " + label,
			Reason: "Its rate limiting rule is in place; keeping both would count and mitigate twice.",
			Note:   note,
		})
		m.b.retire("cloudflare_rate_limit", id)
	}
}

// unwritableRateLimit says why the API would refuse a PUT of the rate limit as it is ("" when
// it would not): the request schema's bounds, which older rate limits may break (a recorded
// one has period 1): period 10 to 86400, threshold at least 1, timeout 1 to 86400.
func unwritableRateLimit(rl inventory.RateLimit) string {
	switch {
	case rl.Period < 10 || rl.Period > 86400:
		return fmt.Sprintf("its period %d is outside 10 to 86400", rl.Period)
	case rl.Threshold < 1:
		return fmt.Sprintf("its threshold %d is below 1", rl.Threshold)
	case rl.Action.Timeout < 0 || rl.Action.Timeout > 86400:
		return fmt.Sprintf("its timeout %d is outside 1 to 86400", rl.Action.Timeout)
	}
	return ""
}

// disabledRateLimitBody is the PUT body that disables a rate limit: the whole object as
// scanned (a PUT replaces it; the schema requires id, match, threshold, period and action),
// with disabled: true.
func disabledRateLimitBody(rl inventory.RateLimit) json.RawMessage {
	rl.Disabled = true
	return mustJSON(rl)
}

// keepRateLimits gives each rate limit that stays a manual step, with the call that adds
// its rule once the blocker is gone; the first also settles the zone's quota finding.
func (m *rateLimitMigration) keepRateLimits(kept []rlTranslation) {
	quotaFPs := m.b.findings(vocab.RateLimitingV1, vocab.KindZone, m.b.z.Zone.ID)
	for i, t := range kept {
		id := t.old.ID
		why, options := m.keptReasons(t)
		resolves := m.b.findings(vocab.RateLimitingV1, vocab.KindRateLimit, id)
		if i == 0 {
			resolves = append(resolves, quotaFPs...)
		}
		call := m.b.manualRuleCall(vocab.PhaseRateLimiting, m.entry, t.rule)
		m.b.add(phaseManual, Step{
			ID: "rate-limit.keep:" + id, Kind: KindRateLimitKeep, Manual: true, Derived: true,
			Method: call.method, Path: call.path, Body: call.body,
			Resolves: resolves, Risk: RiskHigh,
			Title:  "Keep rate limit " + named(t.old.Description, id) + " until it can be migrated",
			Reason: "It cannot become a rate limiting rule now: " + strings.Join(why, "; ") + ".",
			Note:   "Options: " + strings.Join(options, "; ") + ". " + call.note,
			Diffs:  []Diff{rlDiff(t)},
		})
	}
}

// keptReasons say why a rate limit stays (what blocks its rule, else the quota) and what an
// operator can do about it.
func (m *rateLimitMigration) keptReasons(t rlTranslation) (why, options []string) {
	if len(t.blocked) > 0 {
		return t.blocked, []string{"upgrade the plan, or recreate it by hand with what the plan allows (knowing what the difference counts), or drop it; the previous-version rate limit stays meanwhile (it stops working at its end of life)"}
	}
	return []string{fmt.Sprintf("it does not fit the %s plan's quota of %d rate limiting rules", m.plan, m.quota)}, []string{
		"merge rate limits with the same threshold, period and action into one rule (join their expressions with \"or\")",
		"upgrade the plan (or, on Enterprise, the advanced rate limiting add-on)",
		"drop the rate limit if it is no longer needed (disabled ones first)",
	}
}

// rlNewText renders a rate limiting rule in one line for diffs.
func rlNewText(r inventory.RulesetRule) string {
	s := fmt.Sprintf("%s when %s; ratelimit %s", r.Action, r.Expression, string(r.RateLimit))
	if r.Enabled != nil && !*r.Enabled {
		s += " (disabled)"
	}
	return s
}
