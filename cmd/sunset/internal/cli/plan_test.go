package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// writeDemoSnapshot saves the demo account as a snapshot file, the input of an offline plan.
func writeDemoSnapshot(t *testing.T) string {
	t.Helper()
	return writeSnapshotFile(t, seed.Demo())
}

// writeSnapshotFile writes snap to a temporary file and returns its path.
func writeSnapshotFile(t *testing.T, snap *inventory.Snapshot) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanOffline: a plan from a snapshot writes plan.json, plan.md and terraform/, prints
// one summary line per account and zone, and exits 0 (plans are not gates).
func TestPlanOffline(t *testing.T) {
	snap := writeDemoSnapshot(t)
	out := filepath.Join(t.TempDir(), "plan")
	r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, z := range []string{seed.ZoneShop, seed.ZoneBlog, seed.ZoneMedia, seed.ZoneNews, seed.ZoneAPI, seed.ZoneDocs} {
		if !strings.Contains(r.stdout, "zone "+z+": ") {
			t.Errorf("no summary line for %s:\n%s", z, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "to create,") || !strings.Contains(r.stdout, "manual") {
		t.Errorf("no summary:\n%s", r.stdout)
	}
	data, err := os.ReadFile(filepath.Join(out, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrate.ReadPlan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Zones) != 6 || p.AsOf != "2024-05-01" {
		t.Fatalf("plan has %d zones, as of %q", len(p.Zones), p.AsOf)
	}
	md, err := os.ReadFile(filepath.Join(out, "plan.md"))
	if err != nil || !bytes.HasPrefix(md, []byte("# Migration plan")) || strings.Contains(outsideFences(string(md)), "<script>") {
		t.Fatalf("plan.md: %v\n%.300s", err, md)
	}
	tfs, _ := filepath.Glob(filepath.Join(out, "terraform", "*.tf"))
	if len(tfs) < 7 {
		t.Fatalf("terraform files: %v", tfs)
	}
	for _, f := range tfs {
		src, _ := os.ReadFile(f)
		if _, diags := hclsyntax.ParseConfig(src, f, hcl.InitialPos); diags.HasErrors() {
			t.Fatalf("%s: %s", f, diags.Error())
		}
	}
	// Same input, same bytes.
	again := filepath.Join(t.TempDir(), "plan")
	runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", again)
	data2, _ := os.ReadFile(filepath.Join(again, "plan.json"))
	if !bytes.Equal(data, data2) {
		t.Fatal("plan.json differs between two runs on the same snapshot")
	}
}

// TestPlanLive: the live source takes scan's flags (--api-url, --zone) and credentials.
func TestPlanLive(t *testing.T) {
	_, base := sharedEmulator(t)
	out := filepath.Join(t.TempDir(), "plan")
	r := runSunset(t, demoEnv(), "plan", "--api-url", base, "--zone", seed.ZoneDocs, "--as-of", "2025-02-01", "--rps", "0", "--out-dir", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "zone "+seed.ZoneDocs+": ") || strings.Contains(r.stdout, "zone "+seed.ZoneShop) {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, seed.DemoToken) {
		t.Fatal("the token leaked into the output")
	}
}

// TestPlanExitCodes: usage errors exit 2, an unwritable output directory exits 3.
func TestPlanExitCodes(t *testing.T) {
	snap := writeDemoSnapshot(t)
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "extra"); r.code != ExitUsage {
		t.Errorf("stray argument: exit %d", r.code)
	}
	if r := runSunset(t, nil, "plan", "--snapshot", filepath.Join(t.TempDir(), "missing.json")); r.code != ExitUsage {
		t.Errorf("missing snapshot: exit %d", r.code)
	}
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "soon"); r.code != ExitUsage {
		t.Errorf("bad --as-of: exit %d", r.code)
	}
	if r := runSunset(t, map[string]string{}, "plan", "--api-url", "http://127.0.0.1:1/client/v4"); r.code != ExitUsage || !strings.HasPrefix(r.stderr, "sunset: no credentials: set CLOUDFLARE_API_TOKEN") {
		t.Errorf("no credentials: exit %d\n%s", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--out-dir", filepath.Join(file, "sub")); r.code != ExitFatal {
		t.Errorf("unwritable out-dir: exit %d\n%s", r.code, r.stderr)
	}
}

// TestWritePlanDirEmpty: a scan with nothing deprecated writes an empty plan and says so.
func TestWritePlanDirEmpty(t *testing.T) {
	var out, errOut syncBuffer
	s := (&testRun{}).streams(&out, &errOut)
	dir := t.TempDir()
	p := buildPlan(nil, scannerResultEmpty(), &scanOptions{judgeOptions: judgeOptions{asOf: day(t, "2025-02-01")}})
	if err := writePlanDir(s.Out, dir, p, &inventory.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "No changes") {
		t.Fatalf("stdout: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "terraform", "versions.tf")); err != nil {
		t.Fatal(err)
	}
}

func scannerResultEmpty() scanner.Result { return scanner.Result{} }

// outsideFences drops fenced code blocks (where HTML is shown as text, not rendered).
func outsideFences(md string) string {
	var b strings.Builder
	in := ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case in == "" && strings.HasPrefix(t, "```"):
			in = t[:len(t)-len(strings.TrimLeft(t, "`"))]
		case in != "" && t == in:
			in = ""
		case in == "":
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
