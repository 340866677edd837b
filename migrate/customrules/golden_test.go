package customrules

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/internal/golden"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden/translate")

// goldenDir holds the golden translations, shared with the CLI's tests.
const goldenDir = "../../testdata/golden/translate"

// encodeResult is the golden form of a result: indented JSON, HTML left
// unescaped so descriptions read as written.
func encodeResult(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n want " + w + "\n  got " + g
		}
	}
	return "(same lines, different bytes)"
}

// Every demo zone's translation, with its plan and existing custom rules.
func TestGoldenDemoZones(t *testing.T) {
	n := 0
	for _, z := range seed.Demo().Zones {
		if len(z.FirewallRules) == 0 {
			continue
		}
		rs, _ := z.Ruleset(Phase)
		res := Translate(z.FirewallRules, Options{Plan: z.Zone.Plan.LegacyID, Existing: rs.Rules})
		checkGolden(t, "demo-"+z.Zone.Name+".json", encodeResult(t, res))
		n++
	}
	if n != 6 {
		t.Errorf("%d demo zones with firewall rules, want 6", n)
	}
}

// Every firewall rules fixture of the real-world corpus, plan unknown.
func TestGoldenCorpus(t *testing.T) {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: skipping the golden translations of the real-world firewall rules fixtures")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "api", "firewall_rules.*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no firewall_rules fixtures under %s/api (%v)", dir, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := DecodeFirewallRules(data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		// Digests only: the translations reproduce the corpus, which stays outside the project.
		golden.CheckDigests(t, filepath.Join(goldenDir, "corpus-"+filepath.Base(p)+".sha256"),
			map[string][]byte{"translation.json": encodeResult(t, Translate(rules, Options{}))}, *update)
	}
	t.Logf("%d fixtures", len(paths))
}
