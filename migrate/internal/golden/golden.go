// Package golden pins test outputs derived from the real-world corpus by digest. The corpus
// is read at test time and never copied into the project, so neither are outputs that
// reproduce it: a golden file holds one SHA-256 per output file, and a mismatch writes the
// actual output to a temporary folder for inspection.
package golden

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// CheckDigests compares the SHA-256 of each output file with the digest file at path, or
// rewrites that file when update is set.
func CheckDigests(t testing.TB, path string, files map[string][]byte, update bool) {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(want, b.Bytes()) {
		return
	}
	dir, err := os.MkdirTemp("", "sunset-golden-")
	if err != nil {
		t.Fatal(err)
	}
	for n, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			_ = os.WriteFile(p, data, 0o644)
		}
	}
	t.Errorf("%s: the output changed (%s); it is written to %s for inspection; run the test with -update to accept it",
		path, changed(string(want), b.String()), dir)
}

// changed names the files whose digest differs, appeared or disappeared.
func changed(want, got string) string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(s))
		for sc.Scan() {
			if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
				m[name] = sum
			}
		}
		return m
	}
	w, g := parse(want), parse(got)
	var out []string
	for n, sum := range g {
		if w[n] != sum {
			out = append(out, n)
		}
	}
	for n := range w {
		if _, ok := g[n]; !ok {
			out = append(out, n+" (gone)")
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
