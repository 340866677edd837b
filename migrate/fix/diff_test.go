package fix

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// TestDiffAppliesWithGit: the diff `sunset fix` prints is one `git apply` takes, and what it
// leaves is what --write writes.
func TestDiffAppliesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on this machine")
	}
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			applied, written := copyFixture(t, name), copyFixture(t, name)
			res, err := Run(Options{Root: applied, Target: terraform.ProviderV5})
			if err != nil {
				t.Fatal(err)
			}
			diff, err := res.Diff()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(git, "apply", "--unsafe-paths", "-")
			cmd.Dir = applied
			cmd.Stdin = strings.NewReader(diff)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git apply: %v\n%s\n%s", err, out, diff)
			}
			wres, err := Run(Options{Root: written, Target: terraform.ProviderV5})
			if err != nil {
				t.Fatal(err)
			}
			if err := wres.Write(); err != nil {
				t.Fatal(err)
			}
			for _, f := range wres.Files {
				got, err := os.ReadFile(filepath.Join(applied, filepath.FromSlash(f.Path)))
				if err != nil || string(got) != string(f.New) {
					t.Errorf("%s after git apply differs from what --write writes (%v)", f.Path, err)
				}
			}
		})
	}
}
