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
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// checkEquivalent verifies a zone's plan (package verify: the old firewall rules and the new
// custom rules on generated requests) and fails on a difference the plan does not declare.
func checkEquivalent(t *testing.T, z inventory.ZoneInventory, zp *migrate.ZonePlan) (compared bool) {
	t.Helper()
	v := verify.Zone(zp, &z)
	if v.Requests == 0 {
		t.Fatalf("zone %s: no request generated", z.Zone.Name)
	}
	declared := 0
	for _, d := range v.Differences {
		if d.Declared == "" {
			t.Fatalf("zone %s: firewall rules end with %+v, custom rules with %+v, on %d requests (matching old %v, new %v), e.g. %v",
				z.Zone.Name, d.Old, d.New, d.Requests, d.OldRules, d.NewRules, d.Witness)
		}
		declared += d.Requests
	}
	if declared > 0 {
		t.Logf("zone %s: %d of %d requests differ as the plan declares", z.Zone.Name, declared, v.Requests)
	}
	return declared == 0
}

// TestEquivalenceDemo: for every demo zone, the old firewall rules and the new custom rules
// give the same decision on generated requests, except where the plan declares otherwise.
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
		t.Fatalf("only %d demo zones without a declared difference; the demo has more", compared)
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
