package repo

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// TestScriptsWithNULAreChecked: a NUL byte does not hide a script, source file or mostly
// text file from the check; a real binary is skipped and listed; one that may be run as a
// script (executable, or in a directory of commands) without a known binary format is a
// run error, so the run is incomplete rather than passed.
func TestScriptsWithNULAreChecked(t *testing.T) {
	call := "curl -X GET https://api.cloudflare.com/client/v4/zones/$Z/firewall/rules\n"
	noise := strings.Repeat("\x00\x01\x02\x03\x04\x05", 40) // 67% control bytes
	tests := []struct {
		name, path, data string
		exec             bool
		want             string // finding, binary, error
	}{
		{"shell script with a NUL", "deploy.sh", "#!/bin/bash\n\x00\n" + call, false, "finding"},
		{"shebang, no extension, NUL", "deploy", "#!/bin/sh\x00\n" + call, false, "finding"},
		{"python with NULs", "sync.py", "import requests\x00\x00\nrequests.get('https://api.cloudflare.com/client/v4/zones/' + z + '/firewall/rules')\n", false, "finding"},
		{"mostly text, a stray NUL", "notes.txt", "run\x00 " + call + strings.Repeat("text line\n", 20), false, "finding"},
		{"script name, binary noise", "run.sh", noise + call, false, "finding"},
		{"PNG", "logo.png", "\x89PNG\r\n\x1a\n" + noise + call, false, "binary"},
		{"ELF executable", "tool", "\x7fELF" + noise + call, true, "binary"},
		{"executable blob", "tool2", noise + call, true, "error"},
		{"blob in bin/", "bin/run", noise + call, false, "error"},
		{"blob elsewhere", "data/blob", noise + call, false, "binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(tt.path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			mode := os.FileMode(0o644)
			if tt.exec {
				mode = 0o755
			}
			if err := os.WriteFile(p, []byte(tt.data), mode); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf})
			if err != nil {
				t.Fatal(err)
			}
			got := "none"
			switch {
			case len(res.Findings) > 0:
				got = "finding"
			case len(res.Skipped) == 1 && res.Skipped[0].Why == "binary" && strings.HasSuffix(res.Skipped[0].Path, tt.path):
				got = "binary"
			case len(res.Errors) == 1 && res.Errors[0].What == "binary" && res.Incomplete():
				got = "error"
			}
			if got != tt.want {
				t.Fatalf("got %s (findings %d, skipped %v, errors %+v), want %s", got, len(res.Findings), res.Skipped, res.Errors, tt.want)
			}
		})
	}
}

// TestReadersAroundNUL: every file of testdata/repo keeps its findings with a NUL line added
// (JSON and YAML, which a NUL makes unparsable, fall back to the text checks with a
// notice), and no reader panics on a NUL at any of 40 places in it.
func TestReadersAroundNUL(t *testing.T) {
	c := NewChecker(nil, asOf)
	root := "../../testdata/repo"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(p)
		base := c.CheckFile(name, KindOf(name), data)
		// a NUL on a line of its own at the end of the file does not change what is found;
		// JSON and YAML with a NUL do not parse (for their consumers either): they are
		// text-checked with a sunset-parse notice, which the check below sees
		withNUL := append(bytes.Clone(data), "\n\x00\n"...)
		got := c.CheckFile(name, KindOf(name), withNUL)
		switch KindOf(name) {
		case KindJSON, KindYAML, KindTerraformJSON:
			if !strings.Contains(fmtFindings(got.Findings), "sunset-parse") {
				t.Errorf("%s: a NUL makes it unparsable, with no notice: %s", name, fmtFindings(got.Findings))
			}
		default:
			if len(got.Findings) < len(base.Findings) {
				t.Errorf("%s: %d findings with a NUL line at the end, %d without", name, len(got.Findings), len(base.Findings))
			}
		}
		for i := 0; i < len(data); i += max(1, len(data)/40) {
			d := bytes.Clone(data)
			d[i] = 0
			c.CheckFile(name, KindOf(name), d) // must not panic
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func fmtFindings(fs []scanner.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(string(f.RuleID) + " ")
	}
	return b.String()
}
