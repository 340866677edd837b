package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// noAPIURLInEnv makes sure the process's SUNSET_API_URL (read by the --api-url flag itself,
// not through Streams) does not decide where a test's apply goes.
func noAPIURLInEnv(t *testing.T) {
	t.Helper()
	t.Setenv("SUNSET_API_URL", "") // restored after the test
	if err := os.Unsetenv("SUNSET_API_URL"); err != nil {
		t.Fatal(err)
	}
}

// planFrom scans base into a plan directory (as of 2026-11-24, past every end of life) and
// returns the directory.
func planFrom(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plan")
	r := runSunset(t, demoEnv(), "plan", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--no-verify", "--plan-dir", dir)
	if r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	return dir
}

// TestApplyPlanDirGoesWhereItWasRead: a plan directory read from emulator A is applied to A
// when neither --api-url nor SUNSET_API_URL is given (one stderr line says so), not to the
// public API; another --api-url is refused (exit 2) naming both URLs and --to-other-api,
// before any request to either, dry run or not; the same URL spelt otherwise is A; with
// --to-other-api it goes to the other.
func TestApplyPlanDirGoesWhereItWasRead(t *testing.T) {
	noAPIURLInEnv(t)
	srvA, baseA := startEmulator(t, emulator.Options{AsOf: day(t, "2026-11-24")})
	srvB, baseB := startEmulator(t, emulator.Options{AsOf: day(t, "2026-11-24")})
	dir := planFrom(t, baseA)
	apply := func(extra ...string) (*testRun, int, int) {
		t.Helper()
		a, b := srvA.Stats().Total, srvB.Stats().Total
		args := append([]string{"apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--journal", filepath.Join(t.TempDir(), "j")}, extra...)
		r := runSunset(t, demoEnv(), args...)
		return r, srvA.Stats().Total - a, srvB.Stats().Total - b
	}

	for _, yes := range [][]string{nil, {"--yes"}} {
		r, toA, toB := apply(append([]string{"--api-url", baseB}, yes...)...)
		if r.code != ExitUsage || toA+toB != 0 {
			t.Fatalf("another --api-url %v: exit %d, %d+%d requests; want %d, none\n%s", yes, r.code, toA, toB, ExitUsage, r.stderr)
		}
		for _, want := range []string{"was read from " + baseA + ", not from " + baseB, "give --api-url " + baseA, "--to-other-api to apply it to " + baseB} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("another --api-url %v: stderr lacks %q:\n%s", yes, want, r.stderr)
			}
		}
	}

	respelt := "HTTP://" + strings.TrimPrefix(baseA, "http://") + "/"
	if r, toA, toB := apply("--api-url", respelt); r.code != ExitOK || toA+toB != 0 || strings.Contains(r.stderr, "applying to") {
		t.Fatalf("--api-url %s (A spelt otherwise), dry run: exit %d, %d+%d requests\n%s", respelt, r.code, toA, toB, r.stderr)
	}

	r, toA, toB := apply("--api-url", baseB, "--to-other-api", "--yes")
	if r.code != ExitOK || toA != 0 || toB == 0 || srvB.Stats().Writes == 0 {
		t.Fatalf("--to-other-api: exit %d, %d requests to A, %d to B; want 0, none, some\n%s%s", r.code, toA, toB, r.stdout, r.stderr)
	}

	r, toA, toB = apply("--yes")
	if r.code != ExitOK || toA == 0 || toB != 0 || srvA.Stats().Writes == 0 {
		t.Fatalf("no --api-url: exit %d, %d requests to A, %d to B; want 0, some, none\n%s%s", r.code, toA, toB, r.stdout, r.stderr)
	}
	if want := "sunset: applying to " + baseA + ", the API the plan " + filepath.Join(dir, "plan.json") + " was read from (no --api-url or SUNSET_API_URL given)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
}

// TestApplyPlanDirWithoutAnAPISource: a plan whose snapshot was not read from an API URL
// (the demo's label) is refused by apply --yes (exit 2, no request) unless --api-url says
// where; its dry run says --yes will need one; an edited source is refused as an edited plan.
func TestApplyPlanDirWithoutAnAPISource(t *testing.T) {
	noAPIURLInEnv(t)
	snap := seed.Demo()
	snap.Source = "sunset demo (built-in emulator)"
	snapPath := filepath.Join(t.TempDir(), "demo.json")
	f, err := os.Create(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Write(f); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	dir := filepath.Join(t.TempDir(), "plan")
	if r := runSunset(t, nil, "plan", "--snapshot", snapPath, "--as-of", "2026-11-24", "--no-verify", "--plan-dir", dir); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	srv, base := startEmulator(t, emulator.Options{AsOf: day(t, "2026-11-24")})
	args := []string{"apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--journal", filepath.Join(t.TempDir(), "j")}

	r := runSunset(t, demoEnv(), append(args, "--yes")...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, `was read from "sunset demo (built-in emulator)", not from an API URL: give --api-url URL`) {
		t.Fatalf("--yes without --api-url: exit %d, want %d\n%s", r.code, ExitUsage, r.stderr)
	}
	r = runSunset(t, demoEnv(), args...)
	if r.code != ExitOK || !strings.Contains(r.stderr, "this dry run sends nothing; --yes needs --api-url URL") {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
	}
	if n := srv.Stats().Total; n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if r := runSunset(t, demoEnv(), append(args, "--yes", "--api-url", base)...); r.code != ExitOK || srv.Stats().Writes == 0 {
		t.Fatalf("--yes --api-url: exit %d, %d writes\n%s%s", r.code, srv.Stats().Writes, r.stdout, r.stderr)
	}

	planPath := filepath.Join(dir, "plan.json")
	data, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"source": "sunset demo (built-in emulator)"`, `"source": "`+base+`"`, 1)
	if err := os.WriteFile(planPath, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	total := srv.Stats().Total
	r = runSunset(t, demoEnv(), append(args, "--yes")...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "plan: its source") || srv.Stats().Total != total {
		t.Fatalf("an edited source: exit %d, %d requests; want %d, none\n%s", r.code, srv.Stats().Total-total, ExitUsage, r.stderr)
	}
}
