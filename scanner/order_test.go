package scanner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

func TestFingerprint(t *testing.T) {
	sum := sha256.Sum256([]byte("live\x00firewall-rules\x00z1"))
	if got, want := Fingerprint("live", "firewall-rules", "z1"), hex.EncodeToString(sum[:16]); got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
	if len(Fingerprint()) != 32 {
		t.Errorf("length %d", len(Fingerprint()))
	}
	if Fingerprint("ab", "c") == Fingerprint("a", "bc") {
		t.Error("separator does not keep parts apart")
	}
	if Fingerprint("a", "") == Fingerprint("a") {
		t.Error("an empty trailing part is ignored")
	}
}

// richSnapshot holds at least one object of every kind the live scan reads, in several zones.
func richSnapshot() *inventory.Snapshot {
	var zones []inventory.ZoneInventory
	for _, tc := range liveCases {
		zones = append(zones, tc.snap.Zones...)
	}
	// Merge all zone objects into three zones with distinct ids, so that objects of one zone
	// are plenty and their order can be shuffled.
	merged := make([]inventory.ZoneInventory, 3)
	for i := range merged {
		merged[i] = zoneOn([]string{"free", "pro", "enterprise"}[i])
		merged[i].Zone.ID = fmt.Sprintf("zone%d", i)
		merged[i].Zone.Name = fmt.Sprintf("z%d.example", 2-i) // names sort opposite to ids
		for _, z := range zones {
			m := &merged[i]
			m.FirewallRules = append(m.FirewallRules, z.FirewallRules...)
			m.Filters = append(m.Filters, z.Filters...)
			m.RateLimits = append(m.RateLimits, z.RateLimits...)
			m.WAFPackages = append(m.WAFPackages, z.WAFPackages...)
			m.Settings = append(m.Settings, z.Settings...)
			m.LegacyDNSSettings = append(m.LegacyDNSSettings, z.LegacyDNSSettings...)
			m.DNSRecords = append(m.DNSRecords, z.DNSRecords...)
			m.HealthChecks = append(m.HealthChecks, z.HealthChecks...)
			m.Rulesets = append(m.Rulesets, z.Rulesets...)
			if z.DNSSettings != nil {
				m.DNSSettings = z.DNSSettings
			}
		}
		merged[i].FirewallRules = append(merged[i].FirewallRules, fwRules(6, nil)...)
	}
	var accounts []inventory.AccountInventory
	for _, tc := range liveCases {
		accounts = append(accounts, tc.snap.Accounts...)
	}
	acc := inventory.AccountInventory{Account: inventory.Account{ID: "acc1", Name: "Acme", Settings: &inventory.AccountSettings{UseAccountCustomNSByDefault: ptr(true)}}}
	for _, a := range accounts {
		acc.Tunnels = append(acc.Tunnels, a.Tunnels...)
		acc.AccessBookmarks = append(acc.AccessBookmarks, a.AccessBookmarks...)
		acc.LoadBalancerPools = append(acc.LoadBalancerPools, a.LoadBalancerPools...)
	}
	return snapOf(merged, acc)
}

// cloneSnapshot deep-copies through JSON, as a saved and reloaded snapshot would be.
func cloneSnapshot(t *testing.T, s *inventory.Snapshot) *inventory.Snapshot {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out inventory.Snapshot
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func shuffleSnapshot(r *rand.Rand, s *inventory.Snapshot) {
	sh := func(n int, swap func(i, j int)) { r.Shuffle(n, swap) }
	sh(len(s.Zones), func(i, j int) { s.Zones[i], s.Zones[j] = s.Zones[j], s.Zones[i] })
	for i := range s.Zones {
		z := &s.Zones[i]
		sh(len(z.FirewallRules), func(i, j int) { z.FirewallRules[i], z.FirewallRules[j] = z.FirewallRules[j], z.FirewallRules[i] })
		sh(len(z.Filters), func(i, j int) { z.Filters[i], z.Filters[j] = z.Filters[j], z.Filters[i] })
		sh(len(z.DNSRecords), func(i, j int) { z.DNSRecords[i], z.DNSRecords[j] = z.DNSRecords[j], z.DNSRecords[i] })
		sh(len(z.Settings), func(i, j int) { z.Settings[i], z.Settings[j] = z.Settings[j], z.Settings[i] })
		sh(len(z.HealthChecks), func(i, j int) { z.HealthChecks[i], z.HealthChecks[j] = z.HealthChecks[j], z.HealthChecks[i] })
	}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		sh(len(a.Tunnels), func(i, j int) { a.Tunnels[i], a.Tunnels[j] = a.Tunnels[j], a.Tunnels[i] })
	}
}

func TestScanIsDeterministicAndOrderIndependent(t *testing.T) {
	base := richSnapshot()
	first := scan(t, base, asOf2024)
	if len(first.Findings) < 40 {
		t.Fatalf("rich snapshot gave only %d findings", len(first.Findings))
	}
	seen := map[string]bool{}
	for _, f := range first.Findings {
		if seen[f.Fingerprint] {
			t.Errorf("duplicate fingerprint %s (%s %s/%s)", f.Fingerprint, f.RuleID, f.Resource.Kind, f.Resource.ID)
		}
		seen[f.Fingerprint] = true
	}
	again := scan(t, base, asOf2024)
	if !reflect.DeepEqual(first, again) {
		t.Fatal("two scans of the same snapshot differ")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		s := cloneSnapshot(t, base)
		shuffleSnapshot(r, s)
		got := scan(t, s, asOf2024)
		if !reflect.DeepEqual(first.Findings, got.Findings) {
			t.Fatalf("shuffle %d changed the findings", i)
		}
	}
	// A fingerprint does not depend on the date (severity changes, identity does not) nor on
	// how many other objects a zone has.
	later := scan(t, base, day("2030-01-01"))
	fps := func(fs []Finding) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.Fingerprint
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(fps(first.Findings), fps(later.Findings)) {
		t.Error("fingerprints change with the as-of date")
	}
}

func TestFingerprintIsIdentityNotContent(t *testing.T) {
	mk := func(action string, extra int) Result {
		return scan(t, withZone("enterprise", func(z *inventory.ZoneInventory) {
			z.FirewallRules = append(fwRules(extra, nil), inventory.FirewallRule{ID: "keep", Action: vocab.Action(action), Filter: inventory.Filter{ID: "fk", Expression: "ssl"}})
		}), asOf2024)
	}
	a := findingFor(t, mk("block", 0).Findings, "firewall-rules", string(vocab.KindFirewallRule), "keep")
	b := findingFor(t, mk("challenge", 3).Findings, "firewall-rules", string(vocab.KindFirewallRule), "keep")
	if len(a) != 1 || len(b) != 1 || a[0].Fingerprint != b[0].Fingerprint {
		t.Fatalf("fingerprint of one rule changed with its content or neighbours: %v %v", a, b)
	}
	other := scan(t, func() *inventory.Snapshot {
		s := withZone("enterprise", func(z *inventory.ZoneInventory) {
			z.FirewallRules = []inventory.FirewallRule{{ID: "keep", Action: "block", Filter: inventory.Filter{ID: "fk", Expression: "ssl"}}}
		})
		s.Zones[0].Zone.ID = "another-zone"
		return s
	}(), asOf2024).Findings
	if other[0].Fingerprint == a[0].Fingerprint {
		t.Error("same object id in another zone has the same fingerprint")
	}
}

func TestDuplicateObjectIDsGetDistinctFingerprints(t *testing.T) {
	// A public fixture lists two SRV records with one id.
	snap := withZone("free", func(z *inventory.ZoneInventory) {
		z.DNSRecords = []inventory.DNSRecord{
			{ID: "dup", Type: "SRV", Name: "_imap._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_tcp"), Name: ptr("example.com")}},
			{ID: "dup", Type: "SRV", Name: "_pop3._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_pop3"), Name: ptr("example.com")}},
			{ID: "dup", Type: "SRV", Name: "_pop3._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_pop3"), Name: ptr("example.com")}},
		}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "srv-data-fields")
	if len(fs) != 2 {
		t.Fatalf("want 2 findings (the exact duplicate kept once), got %d", len(fs))
	}
	if fs[0].Fingerprint == fs[1].Fingerprint {
		t.Error("colliding fingerprints not told apart")
	}
}

func sampleFindings() []Finding {
	var fs []Finding
	for _, zone := range []string{"", "a.example", "b.example"} {
		for _, rule := range []string{"filters", "firewall-rules"} {
			for _, id := range []string{"2", "1"} {
				f := Finding{ZoneName: zone, ZoneID: "id-" + zone, RuleID: vocab.RuleID(rule), Resource: Resource{Kind: "firewall_rule", ID: id}, Message: "m"}
				f.Fingerprint = Fingerprint(zone, rule, id)
				fs = append(fs, f)
			}
		}
	}
	// File findings differ only by location.
	for _, line := range []int{10, 2} {
		fs = append(fs, Finding{RuleID: "filters", Resource: Resource{Kind: "filter", ID: "x"}, Location: &Location{Path: "main.tf", StartLine: line}, Fingerprint: "same"})
	}
	fs = append(fs, Finding{RuleID: "filters", Resource: Resource{Kind: "filter", ID: "x"}, Fingerprint: "same"})
	return fs
}

func TestSortFindingsIsDeterministic(t *testing.T) {
	want := sampleFindings()
	SortFindings(want)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		got := slices.Clone(want)
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		SortFindings(got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d sorted differently", i)
		}
	}
	// Documented order: zone name first (account and file findings first), then rule, kind, id, location.
	if want[0].ZoneName != "" || want[len(want)-1].ZoneName != "b.example" {
		t.Errorf("zone order: first %q last %q", want[0].ZoneName, want[len(want)-1].ZoneName)
	}
	var fileLines []int
	for _, f := range want {
		if f.Resource.Kind == "filter" {
			if f.Location == nil {
				fileLines = append(fileLines, 0)
			} else {
				fileLines = append(fileLines, f.Location.StartLine)
			}
		}
	}
	if !slices.Equal(fileLines, []int{0, 2, 10}) {
		t.Errorf("location order %v", fileLines)
	}
	a := want[len(want)-4:]
	if a[0].RuleID != "filters" || a[0].Resource.ID != "1" || a[1].Resource.ID != "2" || a[2].RuleID != "firewall-rules" {
		t.Errorf("rule/id order within a zone: %+v", a)
	}
}

func TestGateFails(t *testing.T) {
	fs := []Finding{
		{Severity: SeverityNotice},
		{Severity: SeverityWarning},
		{Severity: SeverityError, Suppressed: true},
	}
	cases := []struct {
		fs     []Finding
		failOn Severity
		want   bool
	}{
		{fs, SeverityNone, false},
		{fs, SeverityNotice, true},
		{fs, SeverityWarning, true},
		{fs, SeverityError, false}, // the only error is suppressed
		{fs[:1], SeverityWarning, false},
		{nil, SeverityNotice, false},
		{[]Finding{{Severity: SeverityNone}}, SeverityNotice, false},
		{[]Finding{{Severity: SeverityError}}, SeverityError, true},
		{[]Finding{{Severity: SeverityError}}, SeverityNone, false},
	}
	for i, tc := range cases {
		if got := GateFails(tc.fs, tc.failOn); got != tc.want {
			t.Errorf("case %d: GateFails(fail-on %s) = %v, want %v", i, tc.failOn, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	fs := []Finding{
		{RuleID: "filters", Severity: SeverityError, ZoneName: "a.example"},
		{RuleID: "filters", Severity: SeverityError, ZoneName: "a.example"},
		{RuleID: "firewall-rules", Severity: SeverityWarning, ZoneName: "b.example"},
		{RuleID: "argo-tunnels-api", Severity: SeverityNotice},
		{RuleID: "firewall-rules", Severity: SeverityError, ZoneName: "b.example", Suppressed: true},
	}
	s := Summarize(fs)
	if s.Total != 5 || s.Suppressed != 1 || s.Active != 4 {
		t.Errorf("totals %+v", s)
	}
	if s.Count(SeverityError) != 2 || s.Count(SeverityWarning) != 1 || s.Count(SeverityNotice) != 1 {
		t.Errorf("by severity %v", s.BySeverity)
	}
	if !reflect.DeepEqual(s.ByRule, map[string]int{"filters": 2, "firewall-rules": 1, "argo-tunnels-api": 1}) {
		t.Errorf("by rule %v", s.ByRule)
	}
	if !reflect.DeepEqual(s.ByZone, map[string]int{"a.example": 2, "b.example": 1}) {
		t.Errorf("by zone %v", s.ByZone)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"total":5,"suppressed":1,"active":4,"by_severity":{"error":2,"notice":1,"warning":1},"by_rule":{"argo-tunnels-api":1,"filters":2,"firewall-rules":1},"by_zone":{"a.example":2,"b.example":1}}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	empty := Summarize(nil)
	if empty.Total != 0 || empty.BySeverity == nil {
		t.Errorf("empty summary %+v", empty)
	}
}
