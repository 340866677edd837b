package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScanPlanDirEqualsPlan shows that the plan directory a scan writes while it collects
// (each zone planned, verified and spilled as it is read, the account never held whole) has
// the same files, byte for byte, as `sunset plan` writes from the whole snapshot.
func TestScanPlanDirEqualsPlan(t *testing.T) {
	_, base := sharedEmulator(t)
	dir := t.TempDir()
	streamed, whole := filepath.Join(dir, "scan"), filepath.Join(dir, "plan")
	if r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--workers", "3", "--as-of", "2025-02-01",
		"--fail-on", "none", "--format", "html:"+filepath.Join(dir, "r.html"), "--plan-dir", streamed); r.code != ExitOK {
		t.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
	}
	if r := runSunset(t, demoEnv(), "plan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--plan-dir", whole); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	files := 0
	err := filepath.WalkDir(whole, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(whole, path)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(streamed, rel))
		if err != nil {
			t.Errorf("scan --plan-dir did not write %s: %v", rel, err)
			return nil
		}
		files++
		if string(got) != string(want) {
			t.Errorf("%s differs from sunset plan's", rel)
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
