package seed

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Large snapshots are compared with reflect.DeepEqual (which follows pointers): encoding them
// as JSON is far slower than generating them.

func TestGenerateIsDeterministic(t *testing.T) {
	a := Generate(500, 42)
	if !reflect.DeepEqual(a, Generate(500, 42)) {
		t.Fatal("Generate(500, 42) differs between calls")
	}
	if reflect.DeepEqual(a, Generate(500, 43)) {
		t.Fatal("Generate ignores its seed")
	}
	// The wire form is reproducible too.
	if !bytes.Equal(encode(t, Generate(20, 42)), encode(t, Generate(20, 42))) {
		t.Fatal("Generate(20, 42) encodes differently between calls")
	}
}

func TestGenerateIsSorted(t *testing.T) {
	s := Generate(500, 7)
	s.Sort()
	if !reflect.DeepEqual(s, Generate(500, 7)) {
		t.Fatal("Generate's output is not sorted as Snapshot.Sort sorts")
	}
}

func TestGenerateRoundTrips(t *testing.T) {
	want := encode(t, Generate(40, 7))
	got, err := inventory.ReadSnapshot(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, got), want) {
		t.Fatal("generated snapshot does not survive a write/read round trip")
	}
}

func TestGenerateZero(t *testing.T) {
	for _, n := range []int{0, -5} {
		s := Generate(n, 1)
		if len(s.Zones) != 0 || len(s.Accounts) != 0 || s.SchemaVersion != inventory.SnapshotSchemaVersion {
			t.Errorf("Generate(%d): %d zones, %d accounts, schema %d", n, len(s.Zones), len(s.Accounts), s.SchemaVersion)
		}
	}
}

func TestGenerateShape(t *testing.T) {
	const n = 2000
	s := Generate(n, 2024)
	if len(s.Zones) != n {
		t.Fatalf("%d zones, want %d", len(s.Zones), n)
	}
	if want := (n + ZonesPerAccount - 1) / ZonesPerAccount; len(s.Accounts) != want {
		t.Errorf("%d accounts, want %d", len(s.Accounts), want)
	}
	checkIDs(t, s)
	checkConsistency(t, s)

	perAccount := map[string]int{}
	plans := map[string]int{}
	names := map[string]bool{}
	var srvLegacy, srvConflict, nat, owasp, orphans, shared, nullPrio int
	for i := range s.Zones {
		z := &s.Zones[i]
		perAccount[z.Zone.Account.ID]++
		plans[z.Zone.Plan.LegacyID]++
		if names[z.Zone.Name] {
			t.Errorf("zone name %s used twice", z.Zone.Name)
		}
		names[z.Zone.Name] = true
		if q := firewallQuota[z.Zone.Plan.LegacyID]; len(z.FirewallRules) > q {
			t.Errorf("%s: %d firewall rules over the %s quota %d", z.Zone.Name, len(z.FirewallRules), z.Zone.Plan.LegacyID, q)
		}
		if p := z.Zone.Plan.LegacyID; p == inventory.PlanFree || p == inventory.PlanPro {
			for _, f := range z.Filters {
				if isRegex(f.Expression) {
					t.Errorf("%s: regex filter on a %s zone: %s", z.Zone.Name, p, f.Expression)
				}
			}
			for _, rs := range z.Rulesets {
				for _, r := range rs.Rules {
					if isRegex(r.Expression) {
						t.Errorf("%s: regex custom rule on a %s zone: %s", z.Zone.Name, p, r.Expression)
					}
				}
			}
		}
		if r := len(z.DNSRecords); r < 10 || r > 50 {
			t.Errorf("%s: %d DNS records, want 10..50", z.Zone.Name, r)
		}
		if len(z.Settings) == 0 || z.DNSSettings == nil {
			t.Errorf("%s: no settings or DNS settings", z.Zone.Name)
		}
		for _, r := range z.DNSRecords {
			if r.Type == "SRV" && r.Data.HasDeprecatedSRVFields() {
				srvLegacy++
				if r.Name != *r.Data.Service+"."+*r.Data.Proto+"."+*r.Data.Name {
					srvConflict++
				}
			}
		}
		for _, r := range z.RateLimits {
			if r.Correlate != nil && r.Correlate.By == "nat" {
				nat++
			}
		}
		for _, p := range z.WAFPackages {
			if p.Package.DetectionMode == "anomaly" {
				owasp++
			}
		}
		orphans += len(orphanFilters(z))
		seen := map[string]bool{}
		for _, r := range z.FirewallRules {
			if seen[r.Filter.ID] {
				shared++
			}
			seen[r.Filter.ID] = true
			if r.Priority == nil {
				nullPrio++
			}
		}
	}
	for id, c := range perAccount {
		if c > ZonesPerAccount {
			t.Errorf("account %s holds %d zones, more than %d", id, c, ZonesPerAccount)
		}
	}
	// Plans drawn 60/25/10/5: allow a wide margin, the point is the shape.
	for plan, want := range map[string]float64{"free": .60, "pro": .25, "business": .10, "enterprise": .05} {
		got := float64(plans[plan]) / n
		if got < want*0.7 || got > want*1.3 {
			t.Errorf("%s: %.1f%% of zones, want about %.0f%%", plan, got*100, want*100)
		}
	}
	for what, c := range map[string]int{
		"SRV records with data fields": srvLegacy, "conflicting SRV records": srvConflict,
		"nat-correlated rate limits": nat, "OWASP packages": owasp, "orphan filters": orphans,
		"shared filters": shared, "null priorities": nullPrio,
	} {
		if c == 0 {
			t.Errorf("no %s in %d generated zones", what, n)
		}
	}
}

// TestGenerateMigratable: the migratable account is deterministic, named so, and keeps every
// zone within what a plan's API calls carry out: rules within the custom rules quota, regex
// only on Business and above, expressions that parse (balanced), rate limits within the new
// quota and what the plan's rate limiting rules can express.
func TestGenerateMigratable(t *testing.T) {
	a, b := GenerateMigratable(200, 9), GenerateMigratable(200, 9)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("GenerateMigratable is not deterministic")
	}
	for _, acc := range a.Accounts {
		if !strings.HasPrefix(acc.Account.Name, "Migratable Account ") {
			t.Errorf("account %q", acc.Account.Name)
		}
	}
	for i := range a.Zones {
		z := &a.Zones[i]
		plan := z.Zone.Plan.LegacyID
		existing := 0
		if rs, ok := z.Ruleset(vocab.PhaseCustomRules); ok {
			existing = len(rs.Rules)
		}
		if n := len(z.FirewallRules) + existing; n > inventory.CustomRulesQuota(plan) {
			t.Errorf("%s (%s): %d custom rules after migration", z.Zone.Name, plan, n)
		}
		for _, r := range z.FirewallRules {
			e := r.Filter.Expression
			if (isRegex(e) && inventory.PlanRank(plan) < 2) || strings.Count(e, "(") != strings.Count(e, ")") {
				t.Errorf("%s (%s): expression %q", z.Zone.Name, plan, e)
			}
		}
		if n := len(z.RateLimits); n > inventory.RateLimitingRulesQuota(plan) {
			t.Errorf("%s (%s): %d rate limits", z.Zone.Name, plan, n)
		}
		avail := inventory.RateLimitRulesFor(plan)
		for _, rl := range z.RateLimits {
			if (rl.Correlate != nil && !avail.AllowsCharacteristic("cf.unique_visitor_id")) ||
				(rl.Match.Response != nil && !avail.CountingExpression) ||
				(!avail.AllowsField("http.request.method") && !slices.Contains(rl.Match.Request.Methods, "_ALL_")) {
				t.Errorf("%s (%s): rate limit %+v", z.Zone.Name, plan, rl)
			}
		}
	}
}
