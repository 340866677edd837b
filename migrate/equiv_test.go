package migrate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// judge evaluates expressions with celcheck, one program per expression. An expression that
// does not check never matches (the old world could not have evaluated it either).
type judge struct {
	t     *testing.T
	progs map[string]*celcheck.Program
	lists map[string][]string
}

func (j *judge) match(src string, req celcheck.Request) bool {
	p, ok := j.progs[src]
	if !ok {
		if c := celcheck.Check(src, celcheck.Options{}); c.Valid {
			p = c.Program
		}
		j.progs[src] = p
		if e, err := expr.Parse(src); err == nil {
			for _, l := range expr.Lists(e) {
				j.lists[l.Name] = []string{"10.0.0.0/8", "192.0.2.0/24", "198.51.100.0/25"}
			}
		}
	}
	if p == nil {
		return false
	}
	ok, err := p.Eval(req, j.lists)
	if err != nil {
		j.t.Fatalf("eval %s: %v", src, err)
	}
	return ok
}

// precedence of firewall rule actions at equal priority (domain-facts), written here
// independently of the code under test.
var precedence = map[string]int{"log": 0, "bypass": 1, "allow": 2, "challenge": 3, "managed_challenge": 4, "js_challenge": 5, "block": 6}

// oldFinal is the final action of firewall rules on a request: ascending priority, null
// last, ties by action precedence; paused rules do not run; log and bypass go on, allow
// ends with "allow", the others end with their action; "" when none ended it.
func oldFinal(j *judge, rules []inventory.FirewallRule, req celcheck.Request) string {
	rs := append([]inventory.FirewallRule(nil), rules...)
	sort.SliceStable(rs, func(a, b int) bool {
		pa, pb := rs[a].Priority, rs[b].Priority
		switch {
		case pa == nil && pb != nil:
			return false
		case pa != nil && pb == nil:
			return true
		case pa != nil && pb != nil && *pa != *pb:
			return *pa < *pb
		}
		return precedence[string(rs[a].Action)] < precedence[string(rs[b].Action)]
	})
	for _, r := range rs {
		if r.Paused || !j.match(r.Filter.Expression, req) {
			continue
		}
		switch r.Action {
		case "log", "bypass":
			continue
		}
		return string(r.Action)
	}
	return ""
}

// newFinal is the final action of custom rules in list order: disabled rules do not run;
// log and skip with products/phases go on; skip ruleset current ends with "allow".
func newFinal(j *judge, rules []inventory.RulesetRule, req celcheck.Request) string {
	for _, r := range rules {
		if !enabled(r) || !j.match(r.Expression, req) {
			continue
		}
		switch r.Action {
		case "log":
			continue
		case "skip":
			var ap struct {
				Ruleset string `json:"ruleset"`
			}
			_ = json.Unmarshal(r.ActionParameters, &ap)
			if ap.Ruleset == "current" {
				return "allow"
			}
			continue
		}
		return string(r.Action)
	}
	return ""
}

// checkEquivalent compares a zone's firewall rules with the custom rules its plan creates
// on generated requests, unless the plan declares a difference for the zone.
func checkEquivalent(t *testing.T, z inventory.ZoneInventory, zp *migrate.ZonePlan) (compared bool) {
	t.Helper()
	for _, n := range zp.Notes {
		if strings.HasPrefix(n, "declared difference:") {
			t.Logf("zone %s: the plan declares a difference (%s); not compared", z.Zone.Name, n)
			return false
		}
	}
	var tg *migrate.Target
	for i := range zp.Targets {
		if zp.Targets[i].Phase == vocab.PhaseCustomRules {
			tg = &zp.Targets[i]
		}
	}
	if tg == nil {
		t.Fatalf("zone %s: no custom rules target", z.Zone.Name)
	}
	existing := 0
	if rs, ok := z.Ruleset(vocab.PhaseCustomRules); ok {
		existing = len(rs.Rules)
	}
	var rules []inventory.RulesetRule
	for _, raw := range tg.Rules[existing:] {
		var r inventory.RulesetRule
		mustDecode(t, raw, &r)
		rules = append(rules, r)
	}
	fw := append([]inventory.FirewallRule(nil), z.FirewallRules...)
	j := &judge{t: t, progs: map[string]*celcheck.Program{}, lists: map[string][]string{}}
	n := 0
	for i, r := range fw {
		e, err := expr.Parse(r.Filter.Expression)
		if err != nil {
			continue
		}
		for _, req := range celcheck.GenerateRequests(e, 60, int64(i+1)) {
			n++
			if o, nw := oldFinal(j, fw, req), newFinal(j, rules, req); o != nw {
				t.Fatalf("zone %s: firewall rules end with %q, custom rules with %q on a request generated from %s:\n%v", z.Zone.Name, o, nw, r.Filter.Expression, fmt.Sprint(req))
			}
		}
	}
	if n == 0 {
		t.Fatalf("zone %s: no request generated", z.Zone.Name)
	}
	return true
}

// TestEquivalenceDemo: for every demo zone whose plan declares no difference, the old
// firewall rules and the new custom rules give the same final action on generated requests.
func TestEquivalenceDemo(t *testing.T) {
	full := seed.Demo()
	compared := 0
	for _, z := range full.Zones {
		p, _ := planOf(zoneSnapshot(full, z.Zone.Name), goldenAsOf)
		zp, ok := p.Zone(z.Zone.ID)
		if !ok || len(z.FirewallRules) == 0 {
			continue
		}
		if checkEquivalent(t, z, zp) {
			compared++
		}
	}
	if compared < 2 {
		t.Fatalf("only %d demo zones compared; the demo has zones without declared differences", compared)
	}
}

// TestEquivalenceRealworld does the same for the realworld firewall rule fixtures and the
// published rule exports.
func TestEquivalenceRealworld(t *testing.T) {
	dir := corpus(t)
	snaps := realworldSnapshots(t, dir)
	for name, s := range exportSnapshots(t, dir) {
		snaps[name] = s
	}
	names := make([]string, 0, len(snaps))
	for n := range snaps {
		names = append(names, n)
	}
	sort.Strings(names)
	compared := 0
	for _, name := range names {
		s := snaps[name]
		if len(s.Zones[0].FirewallRules) == 0 {
			continue
		}
		p, _ := planOf(s, goldenAsOf)
		zp, ok := p.Zone(s.Zones[0].Zone.ID)
		if !ok {
			t.Fatalf("%s: no plan", name)
		}
		t.Run(name, func(t *testing.T) {
			if checkEquivalent(t, s.Zones[0], zp) {
				compared++
			}
		})
	}
	if compared == 0 {
		t.Fatal("no realworld rule set compared")
	}
}

// exportSnapshots wraps each published rule export as the firewall rules of a test zone:
// JSON profiles ({"rules": [{description, expression, action, priority}]}) and plain-text
// expression lists (# comments, one expression over several lines) as one block rule.
func exportSnapshots(t *testing.T, dir string) map[string]*inventory.Snapshot {
	t.Helper()
	out := map[string]*inventory.Snapshot{}
	root := filepath.Join(dir, "exports")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		z := testZone(inventory.PlanEnterprise)
		switch filepath.Ext(path) {
		case ".json":
			var prof struct {
				Rules []struct {
					Description string `json:"description"`
					Expression  string `json:"expression"`
					Action      string `json:"action"`
					Priority    *int   `json:"priority"`
				} `json:"rules"`
			}
			if err := json.Unmarshal(data, &prof); err != nil {
				t.Logf("%s is not valid JSON as published (%v): skipped", rel, err)
				return nil
			}
			for i, r := range prof.Rules {
				id := fmt.Sprintf("%032x", i+1)
				z.FirewallRules = append(z.FirewallRules, inventory.FirewallRule{
					ID: id, Action: vocab.Action(r.Action), Priority: r.Priority, Description: r.Description,
					Filter: inventory.Filter{ID: fmt.Sprintf("f%031x", i+1), Expression: r.Expression},
				})
			}
		case ".txt":
			var lines []string
			for _, l := range strings.Split(string(data), "\n") {
				if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "#") {
					lines = append(lines, s)
				}
			}
			z.FirewallRules = []inventory.FirewallRule{{
				ID: fmt.Sprintf("%032x", 1), Action: "block", Description: strings.TrimSuffix(filepath.Base(path), ".txt"),
				Filter: inventory.Filter{ID: fmt.Sprintf("f%031x", 1), Expression: strings.Join(lines, " ")},
			}}
		default:
			return nil
		}
		s := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Source: "export", Zones: []inventory.ZoneInventory{z}}
		out["export/"+filepath.ToSlash(rel)] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no export found")
	}
	return out
}
