package verify_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/migrate/verify/ruleeval"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// asOf is before every end of life the demo covers, so its plan has every kind of step.
var asOf = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

func planOf(snap *inventory.Snapshot) *migrate.Plan {
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: asOf})
	return migrate.Build(snap, res, migrate.Options{AsOf: asOf})
}

// TestDemoVerifiesSame: the demo's plan gives every generated request the decision the old
// rules gave, and every rate limit counts the requests its old one counted.
func TestDemoVerifiesSame(t *testing.T) {
	snap := seed.Demo()
	p := planOf(snap)
	verify.Verify(p, snap)
	withRules := 0
	for _, z := range p.Zones {
		v := z.Verification
		if v == nil {
			t.Fatalf("zone %s was not verified", z.ZoneName)
		}
		if !v.Same() {
			b, _ := json.MarshalIndent(v, "", "  ")
			t.Errorf("zone %s: the plan changes decisions:\n%s", z.ZoneName, b)
		}
		zi := slices.IndexFunc(snap.Zones, func(x inventory.ZoneInventory) bool { return x.Zone.ID == z.ZoneID })
		if len(snap.Zones[zi].FirewallRules) > 0 {
			withRules++
			if v.Requests < 200 {
				t.Errorf("zone %s: only %d requests tried", z.ZoneName, v.Requests)
			}
		}
		for _, rl := range v.RateLimits {
			if rl.Rule != "" && rl.Requests < 100 {
				t.Errorf("zone %s, rate limit %s: only %d requests tried", z.ZoneName, rl.RateLimitID, rl.Requests)
			}
		}
		t.Logf("%s: %d requests, rate limits %d", z.ZoneName, v.Requests, len(v.RateLimits))
	}
	if withRules < 5 {
		t.Errorf("only %d demo zones with firewall rules verified", withRules)
	}
}

// demoZone is the demo's plan and inventory of one zone.
func demoZone(t *testing.T, name string) (*migrate.ZonePlan, *inventory.ZoneInventory) {
	t.Helper()
	snap := seed.Demo()
	p := planOf(snap)
	zp, ok := p.Zone(name)
	if !ok {
		t.Fatalf("no plan for %s", name)
	}
	for i := range snap.Zones {
		if snap.Zones[i].Zone.Name == name {
			return zp, &snap.Zones[i]
		}
	}
	t.Fatalf("no zone %s", name)
	return nil, nil
}

// target returns the zone plan's target of a phase, decoded.
func target(t *testing.T, zp *migrate.ZonePlan, phase vocab.Phase) (*migrate.Target, []inventory.RulesetRule) {
	t.Helper()
	for i := range zp.Targets {
		if zp.Targets[i].Phase != phase {
			continue
		}
		var rules []inventory.RulesetRule
		for _, raw := range zp.Targets[i].Rules {
			var r inventory.RulesetRule
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			rules = append(rules, r)
		}
		return &zp.Targets[i], rules
	}
	t.Fatalf("zone %s has no %s target", zp.ZoneName, phase)
	return nil, nil
}

func setRules(t *testing.T, tg *migrate.Target, rules []inventory.RulesetRule) {
	t.Helper()
	tg.Rules = nil
	for _, r := range rules {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		tg.Rules = append(tg.Rules, b)
	}
}

// TestPlantedDifferenceFound: a plan whose custom rules lost the one that blocks xmlrpc.php
// differs from the old rules on requests for it; verify reports the difference with a
// witness that reproduces it, the firewall rule that blocked it, and no declaration.
func TestPlantedDifferenceFound(t *testing.T) {
	zp, z := demoZone(t, "shop.example")
	var xmlrpc inventory.FirewallRule
	for _, r := range z.FirewallRules {
		if strings.Contains(r.Description, "xmlrpc") {
			xmlrpc = r
		}
	}
	tg, rules := target(t, zp, vocab.PhaseCustomRules)
	kept := slices.DeleteFunc(slices.Clone(rules), func(r inventory.RulesetRule) bool { return r.Ref == xmlrpc.ID })
	if len(kept) != len(rules)-1 {
		t.Fatalf("no custom rule with ref %s", xmlrpc.ID)
	}
	setRules(t, tg, kept)
	v := verify.Zone(zp, z)
	if v.Same() || v.Differing == 0 || len(v.Differences) == 0 {
		t.Fatalf("the planted difference was not found: %+v", v)
	}
	d := v.Differences[0]
	if d.Old.Action != "block" || !slices.ContainsFunc(d.OldRules, func(s string) bool { return strings.Contains(s, xmlrpc.ID) }) {
		t.Errorf("difference %+v does not name the xmlrpc rule %s blocking", d, xmlrpc.ID)
	}
	if d.New.Action == "block" && strings.Contains(d.New.By, xmlrpc.ID) {
		t.Errorf("the new side still has the rule: %+v", d.New)
	}
	if d.Declared != "" {
		t.Errorf("a difference the plan does not declare is marked declared: %q", d.Declared)
	}
	path, _ := d.Witness["http.request.uri.path"].(string)
	if !strings.Contains(path, "xmlrpc") {
		t.Errorf("witness %v does not request xmlrpc.php", d.Witness)
	}
	reproduce(t, z, kept, d)
	t.Logf("%d of %d requests differ; first: %+v", v.Differing, v.Requests, d)
}

// reproduce evaluates both rule lists on the witness alone and expects the recorded decisions.
func reproduce(t *testing.T, z *inventory.ZoneInventory, now []inventory.RulesetRule, d migrate.Difference) {
	t.Helper()
	ev := ruleeval.NewEvaluator()
	var existing []inventory.RulesetRule
	if rs, ok := z.Ruleset(vocab.PhaseCustomRules); ok {
		existing = rs.Rules
	}
	old := append(ruleeval.CustomRules(existing, 1), ruleeval.FirewallRules(ruleeval.FirewallOrder(z.FirewallRulesWithFilters()))...)
	if got := ev.Decide(old, d.Witness); !got.Same(d.Old) {
		t.Errorf("the witness gets %+v from the old rules, reported %+v", got, d.Old)
	}
	if got := ev.New(now, d.Witness); !got.Same(d.New) {
		t.Errorf("the witness gets %+v from the new rules, reported %+v", got, d.New)
	}
	// The witness holds only fields that decide: without any one, a decision changes.
	for f := range d.Witness {
		less := maps.Clone(d.Witness)
		delete(less, f)
		if ev.Decide(old, less).Key() == d.Old.Key() && ev.New(now, less).Key() == d.New.Key() {
			t.Errorf("witness field %s does not decide the difference: %v", f, d.Witness)
		}
	}
}

// TestPlantedReorderFound: the custom rules of an allow and a block that overlap, listed the
// other way round, differ where both match.
func TestPlantedReorderFound(t *testing.T) {
	one := 1
	z := &inventory.ZoneInventory{Zone: inventory.Zone{ID: "z1", Name: "example.com"}, FirewallRules: []inventory.FirewallRule{
		{ID: "a", Action: vocab.ActionAllow, Filter: inventory.Filter{Expression: `ip.src in {192.0.2.0/24}`}},
		{ID: "b", Action: vocab.ActionBlock, Priority: &one, Filter: inventory.Filter{Expression: `http.request.uri.path contains "/admin"`}},
	}}
	zp := &migrate.ZonePlan{ZoneID: "z1", ZoneName: "example.com", Targets: []migrate.Target{{Phase: vocab.PhaseCustomRules}}}
	right := []inventory.RulesetRule{
		{Action: vocab.ActionBlock, Expression: `http.request.uri.path contains "/admin"`, Ref: "b"},
		{Action: vocab.ActionSkip, ActionParameters: json.RawMessage(`{"ruleset":"current"}`), Expression: `ip.src in {192.0.2.0/24}`, Ref: "a"},
	}
	setRules(t, &zp.Targets[0], right)
	if v := verify.Zone(zp, z); !v.Same() || v.Requests == 0 {
		t.Fatalf("the right order differs: %+v", v)
	}
	wrong := []inventory.RulesetRule{right[1], right[0]}
	setRules(t, &zp.Targets[0], wrong)
	v := verify.Zone(zp, z)
	if v.Same() {
		t.Fatal("the reversed list gives the same decision on every request: the requests do not exercise the overlap")
	}
	d := v.Differences[0]
	if d.Old.Action != "block" || d.New.Action != "allow" || len(d.OldRules) != 2 || len(d.NewRules) != 2 {
		t.Errorf("difference %+v: want block -> allow with both rules matching", d)
	}
	reproduce(t, z, wrong, d)
}

// TestDeclaredDifference: a rule the plan keeps as a firewall rule (regex on the free plan)
// differs, and the difference carries the plan's own declaration.
func TestDeclaredDifference(t *testing.T) {
	snap := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Zones: []inventory.ZoneInventory{{
		Zone: inventory.Zone{ID: "023e105f4ecef8ad9ca31a8372d0c353", Name: "example.com", Plan: inventory.ZonePlan{LegacyID: inventory.PlanFree}},
		FirewallRules: []inventory.FirewallRule{
			{ID: "372e67954025e0ba6aaa6d586b9e0b59", Action: vocab.ActionBlock, Filter: inventory.Filter{ID: "f1", Expression: `http.request.uri.path matches "^/wp-"`}},
			{ID: "372e67954025e0ba6aaa6d586b9e0b5a", Action: vocab.ActionChallenge, Filter: inventory.Filter{ID: "f2", Expression: `http.request.uri.path contains "/login"`}},
		},
	}}}
	p := planOf(snap)
	verify.Verify(p, snap)
	v := p.Zones[0].Verification
	if v.Same() {
		t.Fatal("a kept regex rule gives no difference")
	}
	for _, d := range v.Differences {
		if !strings.Contains(d.Declared, "firewall-rule.keep:372e67954025e0ba6aaa6d586b9e0b59") {
			t.Errorf("difference %+v is not declared by the keep step", d)
		}
	}
}

// TestPlantedRateLimitDifference: a rate limiting rule that lost its method condition counts
// requests the old rate limit did not, and verify says so with a witness.
func TestPlantedRateLimitDifference(t *testing.T) {
	zp, z := demoZone(t, "api.example.com")
	tg, rules := target(t, zp, vocab.PhaseRateLimiting)
	changed := false
	for i, r := range rules {
		if strings.Contains(r.Expression, `http.request.method eq "POST" and `) {
			rules[i].Expression = strings.Replace(r.Expression, `http.request.method eq "POST" and `, "", 1)
			changed = true
		}
	}
	if !changed {
		t.Fatalf("no rate limiting rule with a POST condition: %+v", rules)
	}
	setRules(t, tg, rules)
	v := verify.Zone(zp, z)
	found := false
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			found = true
			if rl.OldCounts || !rl.NewCounts || rl.Witness["http.request.method"] == "POST" {
				t.Errorf("rate limit %s: witness %v, old counts %t, new %t", rl.RateLimitID, rl.Witness, rl.OldCounts, rl.NewCounts)
			}
		}
	}
	if !found || v.Same() {
		t.Fatalf("the planted rate limit difference was not found: %+v", v.RateLimits)
	}
}

// TestVerifyDeterministic: the same plan and snapshot give the same verification, byte for
// byte.
func TestVerifyDeterministic(t *testing.T) {
	render := func() []byte {
		snap := seed.Generate(6, 3)
		p := planOf(snap)
		verify.Verify(p, snap)
		var b bytes.Buffer
		if err := p.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Fatal("two verifications of the same plan differ")
	}
	if !bytes.Contains(a, []byte(`"verification"`)) {
		t.Fatal("the plan carries no verification")
	}
}

// TestMissingZone: a plan zone the snapshot lacks is said to be uncompared, not same.
func TestMissingZone(t *testing.T) {
	p := &migrate.Plan{Zones: []migrate.ZonePlan{{ZoneID: "gone", ZoneName: "gone.example"}}}
	verify.Verify(p, &inventory.Snapshot{})
	v := p.Zones[0].Verification
	if v == nil || !v.Missing || v.Requests != 0 || len(v.Notes) == 0 || !strings.Contains(v.Notes[0], "not in the snapshot") {
		t.Fatalf("verification of a missing zone: %+v", v)
	}
}

// BenchmarkVerifyDemo measures verifying the demo account's whole plan.
func BenchmarkVerifyDemo(b *testing.B) {
	snap := seed.Demo()
	p := planOf(snap)
	b.ResetTimer()
	for range b.N {
		verify.Verify(p, snap)
	}
}

// TestHostileVerificationInPlanMarkdown: a difference whose witness, rule labels and
// declaration carry hostile text (the account's refs, ids, expressions' literals) renders in
// plan.md with no control character and no line a CI runner would read as a command.
func TestHostileVerificationInPlanMarkdown(t *testing.T) {
	const hostile = "x\n::error file=a.tf,line=1::FORGED\x1b[31m\u202e`"
	p := &migrate.Plan{SchemaVersion: migrate.SchemaVersion, Zones: []migrate.ZonePlan{{ZoneID: "z", ZoneName: hostile,
		Verification: &migrate.Verification{Requests: 3, Differing: 1, Notes: []string{hostile},
			Differences: []migrate.Difference{{Requests: 1,
				Old: migrate.Decision{Action: hostile, By: hostile, Skipped: []string{hostile}}, New: migrate.Decision{},
				OldRules: []string{hostile}, NewRules: []string{}, Witness: map[string]any{"http.request.uri.path": hostile}, Declared: hostile}},
			RateLimits: []migrate.RateLimitCheck{{RateLimitID: hostile, Requests: 2, Differing: 1,
				Witness: map[string]any{"http.host": hostile}, NotExact: []string{hostile}}}}}}}
	var b bytes.Buffer
	if err := p.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "FORGED") {
		t.Fatal("the hostile text did not reach plan.md: the test tests nothing")
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("line %d is a workflow command: %q", i+1, line)
		}
		if strings.ContainsFunc(line, func(r rune) bool { return r != '\t' && textsafe.IsControl(r) }) {
			t.Errorf("line %d holds a control character: %q", i+1, line)
		}
	}
}

// TestSchemeRateLimitVerifiesSame: a rate limit whose url has a scheme, and a bypass url with
// an anchor, never matched (the support article 'Why doesn't my Rate Limiting rule match a
// request?'): the old one counts nothing and its rule is created disabled, so both agree on
// every request.
func TestSchemeRateLimitVerifiesSame(t *testing.T) {
	snap := seed.Demo()
	var id string
	for i := range snap.Zones {
		z := &snap.Zones[i]
		if z.Zone.Name != "api.example.com" || len(z.RateLimits) == 0 {
			continue
		}
		rl := &z.RateLimits[0]
		id = rl.ID
		rl.Match.Request.URL = "https://" + rl.Match.Request.URL
		rl.Bypass = append(rl.Bypass, inventory.RateLimitBypass{Name: "url", Value: "api.example.com/*#x"})
	}
	if id == "" {
		t.Fatal("no rate limit on api.example.com")
	}
	p := planOf(snap)
	verify.Verify(p, snap)
	zp, _ := p.Zone("api.example.com")
	_, rules := target(t, zp, vocab.PhaseRateLimiting)
	disabled := slices.ContainsFunc(rules, func(r inventory.RulesetRule) bool {
		return r.Ref == migrate.RateLimitRef(id) && r.Enabled != nil && !*r.Enabled
	})
	if !disabled {
		t.Fatalf("the rule of %s is not created disabled: %+v", id, rules)
	}
	v := zp.Verification
	for _, rl := range v.RateLimits {
		if rl.RateLimitID == id && (rl.Requests < 100 || rl.Differing != 0) {
			t.Errorf("rate limit %s: %d requests, %d differing", id, rl.Requests, rl.Differing)
		}
	}
	if !v.Same() {
		b, _ := json.MarshalIndent(v, "", "  ")
		t.Fatalf("differences:\n%s", b)
	}
}
