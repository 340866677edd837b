package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestScanPlanDirEqualsWholePlan shows that the plan directory a scan or `sunset plan`
// writes while it collects (each zone planned, verified and spilled as it is read, the
// account never held whole) has the same files, byte for byte, as the whole plan of the
// whole snapshot (what --snapshot-out saves) written by writePlanDir.
func TestScanPlanDirEqualsWholePlan(t *testing.T) {
	_, base := sharedEmulator(t)
	dir := t.TempDir()
	saved := filepath.Join(dir, "whole.json")
	if r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none",
		"--format", "json:"+filepath.Join(dir, "r.json"), "--snapshot-out", saved); r.code != ExitOK {
		t.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
	}
	f, err := os.Open(saved)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := inventory.ReadSnapshot(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	o := &scanOptions{}
	o.asOf = day(t, "2025-02-01")
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: o.asOf})
	p := buildPlan(snap, res, o)
	whole := filepath.Join(dir, "whole")
	verifyPlan(io.Discard, p, snap, "")
	if err := writePlanDir(io.Discard, whole, p, snap); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		out  string
		args []string
	}{
		{"scan", []string{"scan", "--workers", "3", "--fail-on", "none", "--format", "html:" + filepath.Join(dir, "r.html")}},
		{"plan", []string{"plan"}},
	} {
		out := filepath.Join(dir, run.out)
		args := append(run.args, "--plan-dir", out, "--api-url", base, "--rps", "0", "--as-of", "2025-02-01")
		if r := runSunset(t, demoEnv(), args...); r.code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", run.out, r.code, r.stderr)
		}
		sameFiles(t, whole, out)
	}
}

// sameFiles fails the test unless got holds every file of want, with the same bytes.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(want, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, path)
		w, _ := os.ReadFile(path)
		g, err := os.ReadFile(filepath.Join(got, rel))
		files++
		if err != nil || string(g) != string(w) {
			t.Errorf("%s: %s differs from the whole plan's (%v)", got, rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4 {
		t.Fatalf("compared %d files: want plan.json, plan.md, snapshot.json and terraform/", files)
	}
}

// TestBacklogAdmitsWhileThereIsRoom shows the plan stream's hold on the collection: admit
// lets a zone start while fewer zones wait to be planned than there are places, and holds
// it back (here: returns the cancelled context's error instead of waiting) while as many
// or more wait, until one of them leaves.
func TestBacklogAdmitsWhileThereIsRoom(t *testing.T) {
	held, cancel := context.WithCancel(context.Background())
	cancel()
	b := backlog{max: 2}
	step := func(what string, wantRoom bool) {
		t.Helper()
		if err := b.wait(held); (err == nil) != wantRoom {
			t.Fatalf("%s: wait gave %v, want room %v", what, err, wantRoom)
		}
	}
	step("none waiting", true)
	b.enter()
	step("one waiting", true)
	b.enter()
	step("two waiting", false)
	b.enter()
	b.leave()
	step("three came, one left", false)
	b.leave()
	step("one waiting again", true)

	done := make(chan error)
	b.enter()
	go func() { done <- b.wait(context.Background()) }()
	b.leave() // the waiter is woken by the room, whichever runs first
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestHeavyZonesPlanAlone pins which zones are planned with no other at once: those whose
// firewall rules, filters, rate limits and WAF overrides reach heavyObjects.
func TestHeavyZonesPlanAlone(t *testing.T) {
	z := &inventory.ZoneInventory{
		FirewallRules: make([]inventory.FirewallRule, heavyObjects/2),
		Filters:       make([]inventory.Filter, heavyObjects/2-1),
	}
	if heavyZone(z) {
		t.Errorf("a zone of %d objects is heavy", heavyObjects-1)
	}
	z.RateLimits = make([]inventory.RateLimit, 1)
	if !heavyZone(z) {
		t.Errorf("a zone of %d objects is not heavy", heavyObjects)
	}
	ps := &planStream{slots: 2}
	if got := ps.places(z); got != 2 {
		t.Errorf("a heavy zone takes %d places of 2, want all", got)
	}
	if got := ps.places(&inventory.ZoneInventory{}); got != 1 {
		t.Errorf("a small zone takes %d places, want 1", got)
	}
}
