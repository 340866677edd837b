package terraform

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// retiredPlan is a generated plan whose zones retire objects of every kind: the generated
// old resources (provider v4 types), WAF overrides, packages, groups and rules (types no
// provider has), types this package does not know, and a zone that shares its name with the
// one before it (their removed blocks and state rm lines go under one heading).
func retiredPlan(t *testing.T) *migrate.Plan {
	t.Helper()
	p := generatedPlan(t, 60)
	for i := range p.Zones {
		z := &p.Zones[i]
		if i%3 == 0 {
			for typ := range goneTypes {
				z.Retired = append(z.Retired, migrate.Retired{Type: typ, ID: fmt.Sprintf("%s-%d", typ, i)})
			}
		}
		if i%4 == 1 {
			z.Retired = append(z.Retired,
				migrate.Retired{Type: "cloudflare_access_bookmark", ID: fmt.Sprintf("bm-%d", i)},
				migrate.Retired{Type: "cloudflare_filter", ID: fmt.Sprintf("extra-filter-%d", i)})
		}
	}
	twin := p.Zones[10]
	twin.ZoneID += "-twin"
	twin.Retired = []migrate.Retired{{Type: "cloudflare_rate_limit", ID: "twin-rl"}, {Type: "cloudflare_waf_rule", ID: "twin-rule"}}
	p.Zones = append(p.Zones[:11], append([]migrate.ZonePlan{twin}, p.Zones[11:]...)...)
	return p
}

// spoolDir points the temporary directory at an empty folder for the rest of the test (and
// keeps the test from running beside others, whose temporary files openTemps would count).
func spoolDir(t *testing.T) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
}

// openTemps is how many temporary files (safefile.Temp) the process has open: they have
// no name, so no listing of the directory shows them.
func openTemps() int {
	n, _ := safefile.TempInUse()
	return n
}

// TestWriteZonesFromSpillEqualsFiles: a plan whose zones come from a spill, written to a
// directory, is the same files as Files gives for the plan held whole, with old objects of
// every kind; the zones' parts of the cleanup files and README.md were in temporary files
// while the zones came, and none is left.
func TestWriteZonesFromSpillEqualsFiles(t *testing.T) {
	p := retiredPlan(t)
	want, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{CleanupDir + "/removed.tf", CleanupDir + "/state-rm.sh"} {
		if len(want[name]) == 0 {
			t.Fatalf("the plan has no %s", name)
		}
	}
	readme := string(want["README.md"])
	for _, s := range []string{"cloudflare_waf_group", "cloudflare_access_bookmark"} {
		if !strings.Contains(readme, s) {
			t.Fatalf("README.md does not name %s", s)
		}
	}
	out := filepath.Join(t.TempDir(), "terraform")
	head, zones := spilled(t, p)
	spoolDir(t)
	before := openTemps()
	during, n := 0, 0
	last := func(fn func(*migrate.ZonePlan) error) error {
		return zones(func(z *migrate.ZonePlan) error {
			if n++; n == len(p.Zones) {
				during = openTemps()
			}
			return fn(z)
		})
	}
	if err := WriteZones(out, head, last); err != nil {
		t.Fatal(err)
	}
	if during <= before {
		t.Error("no temporary file while the zones came: the cleanup parts were held in memory")
	}
	if left := openTemps() - before; left > 0 {
		t.Errorf("%d temporary files left open", left)
	}
	got := readDir(t, out)
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs from Files' (%d bytes, want %d)", name, len(got[name]), len(data))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files written, Files gives %d", len(got), len(want))
	}
}

// readDir reads the files under dir, by slash-separated relative name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var errBoom = errors.New("boom")

// failing is a writer that always fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errBoom }

// TestWriteZonesLeavesNoTemporaryFile: whichever file fails to be written (a zone's, one of
// the cleanup files, README.md, in the middle of copying a temporary file out), and when the
// zones fail to come, the failure is returned and no temporary file is left.
func TestWriteZonesLeavesNoTemporaryFile(t *testing.T) {
	p := retiredPlan(t)
	head, zones := spilled(t, p)
	spoolDir(t)
	before := openTemps()
	firstZone := ""
	for _, name := range []string{"", CleanupDir + "/removed.tf", CleanupDir + "/state-rm.sh", "README.md"} {
		err := generate(head, zones, true, func(n string, write func(io.Writer) error) error {
			if firstZone == "" && strings.HasPrefix(n, "zone_") {
				firstZone = n
			}
			if n == name || (name == "" && n == firstZone) {
				return write(failing{})
			}
			return write(io.Discard)
		})
		if !errors.Is(err, errBoom) {
			t.Errorf("%q failing: %v", name, err)
		}
		if left := openTemps() - before; left > 0 {
			t.Errorf("%q failing: %d temporary files left open", name, left)
		}
	}
	n := 0
	broken := func(fn func(*migrate.ZonePlan) error) error {
		return zones(func(z *migrate.ZonePlan) error {
			if n++; n > len(p.Zones)/2 {
				return errBoom
			}
			return fn(z)
		})
	}
	err := generate(head, broken, true, func(string, func(io.Writer) error) error { return nil })
	if left := openTemps() - before; !errors.Is(err, errBoom) || left > 0 {
		t.Errorf("zones failing: %v, %d temporary files left open", err, left)
	}
}

// TestWriteZonesRefusalLeavesNoTemporaryFile: when the directory refuses README.md (a
// folder is in its place), WriteZones says so and leaves no temporary file.
func TestWriteZonesRefusalLeavesNoTemporaryFile(t *testing.T) {
	p := retiredPlan(t)
	out := filepath.Join(t.TempDir(), "terraform")
	if err := os.MkdirAll(filepath.Join(out, "README.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	head, zones := spilled(t, p)
	spoolDir(t)
	before := openTemps()
	if err := WriteZones(out, head, zones); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("WriteZones: %v", err)
	}
	if left := openTemps() - before; left > 0 {
		t.Errorf("%d temporary files left open", left)
	}
}
