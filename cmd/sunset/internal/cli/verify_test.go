package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// planDemo writes the demo snapshot and its plan (with extra args) and returns the snapshot
// path and the plan directory.
func planDemo(t *testing.T, args ...string) (string, string) {
	t.Helper()
	snap := writeDemoSnapshot(t)
	dir := filepath.Join(t.TempDir(), "plan")
	r := runSunset(t, nil, append([]string{"plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", dir}, args...)...)
	if r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return snap, dir
}

func readPlanJSON(t *testing.T, path string) *migrate.Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrate.ReadPlan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanVerifiesByDefault: plan.json carries every zone's verification (same decision on
// the demo), and --no-verify leaves it out.
func TestPlanVerifiesByDefault(t *testing.T) {
	_, dir := planDemo(t)
	for _, z := range readPlanJSON(t, filepath.Join(dir, "plan.json")).Zones {
		if z.Verification == nil || !z.Verification.Same() {
			t.Errorf("zone %s: verification %+v", z.ZoneName, z.Verification)
		}
	}
	_, dir = planDemo(t, "--no-verify")
	for _, z := range readPlanJSON(t, filepath.Join(dir, "plan.json")).Zones {
		if z.Verification != nil {
			t.Errorf("zone %s verified under --no-verify", z.ZoneName)
		}
	}
}

// TestVerifyFindsPlantedDifference: a saved plan whose shop.example custom rules lost the one
// that blocks xmlrpc.php fails verification (exit 1), naming the firewall rule and a witness.
func TestVerifyFindsPlantedDifference(t *testing.T) {
	snapPath, dir := planDemo(t, "--no-verify")
	planPath := filepath.Join(dir, "plan.json")
	if r := runSunset(t, nil, "verify", "--plan-in", planPath, "--snapshot", snapPath); r.code != ExitOK {
		t.Fatalf("the demo plan does not verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var xmlrpc string
	for _, z := range seed.Demo().Zones {
		for _, r := range z.FirewallRules {
			if z.Zone.Name == seed.ZoneShop && strings.Contains(r.Filter.Expression, "xmlrpc") {
				xmlrpc = r.ID
			}
		}
	}
	p := readPlanJSON(t, planPath)
	zp, _ := p.Zone(seed.ZoneShop)
	dropped := false
	for i, tg := range zp.Targets {
		if tg.Phase != vocab.PhaseCustomRules {
			continue
		}
		var kept []json.RawMessage
		for _, raw := range tg.Rules {
			var r inventory.RulesetRule
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if r.Ref == xmlrpc {
				dropped = true
				continue
			}
			kept = append(kept, raw)
		}
		zp.Targets[i].Rules = kept
	}
	if !dropped {
		t.Fatalf("no custom rule of firewall rule %s in the plan", xmlrpc)
	}
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSunset(t, nil, "verify", "--plan-in", planPath, "--snapshot", snapPath)
	if r.code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"old block by firewall rule " + xmlrpc, "new no rule acts (the request goes on)", "witness {", "xmlrpc", "1 without a declared reason"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runSunset(t, nil, "verify", "--plan-in", planPath, "--snapshot", snapPath, "--format", "json")
	var out verifyOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != ExitFindings {
		t.Fatalf("exit %d, %v:\n%s", r.code, err, r.stdout)
	}
	if out.Undeclared != 1 || out.Differing != 1 || len(out.Zones) != 6 {
		t.Errorf("json summary %+v", out)
	}
}

// TestVerifySummaryAddsUpItsColumns: the table's last line says as many generated requests
// as its REQUESTS column adds up to, and the rate limits of its RATE LIMITS column apart with
// the requests they were compared on; the JSON says the same numbers.
func TestVerifySummaryAddsUpItsColumns(t *testing.T) {
	_, dir := planDemo(t)
	r := runSunset(t, nil, "verify", dir, "--format", "table", "--format", "json:"+filepath.Join(t.TempDir(), "v.json"))
	if r.code != ExitOK {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[0], "ZONE") || !strings.Contains(lines[0], "RATE LIMITS") {
		t.Fatalf("header %q", lines[0])
	}
	requests, rateLimits := 0, 0
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 4 {
			break // the end of the table
		}
		n, err1 := strconv.Atoi(f[1])
		rl, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			break
		}
		requests, rateLimits = requests+n, rateLimits+rl
	}
	p := readPlanJSON(t, filepath.Join(dir, "plan.json"))
	rlRequests := 0
	for _, z := range p.Zones {
		for _, rl := range z.Verification.RateLimits {
			rlRequests += rl.Requests
		}
	}
	if rateLimits == 0 || rlRequests == 0 {
		t.Fatal("the demo plan compares no rate limit: the test would pass without counting them apart")
	}
	want := fmt.Sprintf("Verified on %s generated requests (and %s rate limits, on %s more): ", thousands(requests), thousands(rateLimits), thousands(rlRequests))
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want it to start %q", last, want)
	}
}

// TestVerifyWithoutADirectorySaysToGiveOne: `sunset verify` with no plan directory, no
// --snapshot and no credentials asks for the plan directory first, not only for credentials.
func TestVerifyWithoutADirectorySaysToGiveOne(t *testing.T) {
	r := runSunset(t, nil, "verify")
	if r.code != ExitUsage || !strings.HasPrefix(r.stderr, "sunset: verify: give the plan directory to verify (sunset verify plan/") ||
		!strings.Contains(r.stderr, "needs credentials: no credentials: set CLOUDFLARE_API_TOKEN") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestVerifySaysWhatItCompared: the verification's line says that nothing was compared when
// no zone had a rule or rate limit to compare (never "Verified on 0 generated requests:
// same decision"), and counts the requests generated for rate limits apart from the rules',
// as the table's column counts only the rules'.
func TestVerifySaysWhatItCompared(t *testing.T) {
	nothing := &migrate.Plan{Zones: []migrate.ZonePlan{{ZoneName: "a.example", Verification: &migrate.Verification{}}}}
	var line, table bytes.Buffer
	verifyPlanLine := func(p *migrate.Plan) { line.Reset(); reportVerification(&line, p, "plan.md") }
	verifyPlanLine(nothing)
	if err := writeVerification(&table, "table", nothing); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{line.String(), table.String()} {
		if !strings.Contains(out, "Nothing verified: ") || strings.Contains(out, "Verified on 0") || strings.Contains(out, "same decision") {
			t.Errorf("nothing compared, yet:\n%s", out)
		}
	}
	both := &migrate.Plan{Zones: []migrate.ZonePlan{{ZoneName: "a.example", Verification: &migrate.Verification{
		Requests: 1200, RateLimits: []migrate.RateLimitCheck{{Rule: "r1", Requests: 300}},
	}}}}
	verifyPlanLine(both)
	want := "Verified on 1,200 generated requests (and 1 rate limit, on 300 more): same decision in every zone.\n"
	if line.String() != want {
		t.Errorf("got %q, want %q", line.String(), want)
	}
}

// TestVerifySaysWhatDecides: a decision no rule made reads as such, never "- by -".
func TestVerifySaysWhatDecides(t *testing.T) {
	for _, c := range []struct {
		d    migrate.Decision
		want string
	}{
		{migrate.Decision{}, "no rule acts (the request goes on)"},
		{migrate.Decision{Action: "block", By: "custom rule r1"}, "block by custom rule r1"},
		{migrate.Decision{Action: "allow", By: "firewall rule f1", Skipped: []string{"waf"}, Logged: true}, "allow by firewall rule f1, skipping waf, logged"},
	} {
		if got := decisionText(c.d); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
}

// TestVerifyIsBriefAtScale: on a terminal, verify of more than 20 zones lists only the zones
// that decide or count otherwise, counts the rate limits not carried over exactly by reason,
// and says how to see every zone; a file gets every zone's line. A rate limit the plan keeps
// is said to be kept, never "compared: same requests counted".
func TestVerifyIsBriefAtScale(t *testing.T) {
	snap := writeSnapshotFile(t, seed.Generate(30, 1))
	dir := filepath.Join(t.TempDir(), "plan")
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2026-11-24", "--plan-dir", dir, "--no-verify"); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "verify.txt")
	r := (&testRun{outTTY: true, width: 120}).exec(context.Background(), "verify", dir, "--format", "table", "--format", "table:"+file)
	if r.code != ExitOK {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	full, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(full), "\n"); n < 31 || strings.Count(r.stdout, "\n") > 40 {
		t.Errorf("the terminal's table has %d lines, the file's %d:\n%s", strings.Count(r.stdout, "\n"), n, r.stdout)
	}
	for _, want := range []string{"Every one of the 30 zones decides and counts as before.\n", "not carried over exactly, by reason:\n",
		"Every zone one by one: --format table:FILE (or --format json:FILE).\n", "\nVerified on "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the terminal's table lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(string(full), "kept by the plan (no rule to compare)") || regexp.MustCompile(`(?m)^\S+ +0 +0 +0 +1 rate limit compared`).Match(full) {
		t.Errorf("a kept rate limit is not said to be kept:\n%s", full)
	}
}
