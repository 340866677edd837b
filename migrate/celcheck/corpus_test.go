package celcheck

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The real-world corpus is read at test time from $SUNSET_CORPUS and never
// copied into the repository.

type corpusEntry struct {
	Expr     string `json:"expr"`
	Category string `json:"category"`
	Why      string `json:"why"`
}

func loadCorpus(tb testing.TB) map[string][]corpusEntry {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		tb.Skip("SUNSET_CORPUS is not set: skipping the real-world expression corpus")
	}
	f, err := os.Open(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string][]corpusEntry{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e corpusEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			tb.Fatal(err)
		}
		out[e.Category] = append(out[e.Category], e)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestCorpusProbe(t *testing.T) {
	c := loadCorpus(t)
	for _, cat := range []string{"filter", "invalid", "invalid-wirefilter"} {
		pass := 0
		for _, e := range c[cat] {
			r := checkSource(e.Expr, Options{})
			if r.Valid == (cat == "filter") {
				pass++
				continue
			}
			t.Logf("%s: %q", cat, e.Expr)
			for _, d := range r.Diagnostics {
				t.Logf("    %s", d)
			}
		}
		t.Logf("%s: %d/%d", cat, pass, len(c[cat]))
	}
}
