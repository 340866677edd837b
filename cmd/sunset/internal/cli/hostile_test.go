package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// forged is a zone name that, printed raw on a line of a GitHub Actions log, ends the line
// and writes a workflow command of its own.
const forged = "x\n::error file=a.tf,line=1::FORGED"

// hostileText is forged with an SGR colour, an OSC 8 hyperlink, a carriage return and a bidi
// override: what an account can put in any name or description.
const hostileText = "\x1b[31mred\x1b[0m \x1b]8;;http://evil\x07link " + forged + "\r\u202e"

// hostileSeed is the demo account with hostileText in every name, description, ref and
// expression (seed.Hostile).
func hostileSeed(t *testing.T) *inventory.Snapshot {
	t.Helper()
	snap, err := seed.Hostile(hostileText)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// checkLines fails when a line of out holds a control character other than a tab, or starts
// (after blanks, as GitHub's runner reads it) with the forged command, or with any "::" where
// commands is false (only the GitHub format writes workflow commands). It returns whether the
// hostile text reached out at all.
func checkLines(t *testing.T, name, out string, commands bool) bool {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if !commands && strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("%s:%d: a workflow command: %q", name, i+1, line)
		}
		if strings.HasPrefix(strings.TrimSpace(line), "::error file=a.tf") {
			t.Errorf("%s:%d: the forged command is a line of its own: %q", name, i+1, line)
		}
		for _, r := range strings.ReplaceAll(line, "\t", " ") {
			if textsafe.IsControl(r) {
				t.Errorf("%s:%d: control character %U: %q", name, i+1, r, line)
				break
			}
		}
	}
	return strings.Contains(out, "FORGED")
}

// checkFiles runs checkLines over every file under dir but JSON, which escapes what it holds.
func checkFiles(t *testing.T, dir string) int {
	t.Helper()
	reached := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if checkLines(t, rel, string(b), rel == "github.txt") {
			reached++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return reached
}

// TestHostileAccountText: zone and account names, descriptions and expressions from the API
// (and from a saved snapshot) reach no line of the terminal table, stderr, the GitHub
// annotations, the TSV and Markdown reports, plan.md or the Terraform files with a line break,
// an escape sequence or a control character: the forged "::error" is never a line of its own.
func TestHostileAccountText(t *testing.T) {
	_, base := startEmulator(t, emulator.Options{Seed: hostileSeed(t)})
	dir := t.TempDir()
	snap := filepath.Join(dir, "snapshot.json")
	for _, tty := range []bool{false, true} {
		r := &testRun{env: demoEnv(), outTTY: tty, errTTY: tty, width: 120}
		// --color never: sunset's own styles are escape sequences too.
		r.exec(t.Context(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2024-05-01", "--fail-on", "none", "--color", "never",
			"--format", "table", "--format", "github:"+filepath.Join(dir, "github.txt"),
			"--format", "tsv:"+filepath.Join(dir, "report.tsv"), "--format", "markdown:"+filepath.Join(dir, "report.md"),
			"--snapshot-out", snap, "--plan", filepath.Join(dir, "scan-plan"))
		if r.code != ExitOK {
			t.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
		}
		if !checkLines(t, "scan stdout", r.stdout, false) {
			t.Errorf("the hostile names never reached the table:\n%s", r.stdout)
		}
		// The progress line redraws itself with CR and erase-line: sunset's own sequences.
		checkLines(t, "scan stderr", strings.ReplaceAll(r.stderr, "\r\x1b[K", "\n"), false)
	}
	r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", filepath.Join(dir, "plan"))
	if r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if !checkLines(t, "plan stdout", r.stdout+r.stderr, false) {
		t.Errorf("the hostile names never reached the plan summary:\n%s", r.stdout)
	}
	if n := checkFiles(t, dir); n < 8 {
		t.Errorf("the hostile text reached only %d files", n)
	}
}

// TestHostileRepositoryText: a file whose name holds the forged command and whose content
// holds escape sequences is checked; no line of the table, the annotations or stderr holds
// either.
func TestHostileRepositoryText(t *testing.T) {
	root := t.TempDir()
	name := "main" + forged + "\x1b[31m.tf"
	src := "resource \"cloudflare_firewall_rule\" \"x\x1b]0;title\x07\" {\n  description = \"\x1b[2J" + forged + "\"\n}\n"
	if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	for _, format := range []string{"table", "github", "tsv", "markdown"} {
		for _, tty := range []bool{false, true} {
			r := &testRun{outTTY: tty, errTTY: tty, width: 120}
			r.exec(t.Context(), "check", "--as-of", "2025-02-01", "--fail-on", "none", "--color", "never", "--format", format, root)
			if r.code != ExitOK {
				t.Fatalf("check --format %s: exit %d\n%s", format, r.code, r.stderr)
			}
			if !checkLines(t, "check "+format, r.stdout, format == "github") {
				t.Errorf("check --format %s: the file name never reached the output:\n%s", format, r.stdout)
			}
			checkLines(t, "check stderr", r.stderr, false)
		}
	}
}

// TestHostileErrorText: an error message holding a line break and escape sequences (here a
// --snapshot path, as an API message or a file name would) is printed one sanitised
// "sunset: " line per line.
func TestHostileErrorText(t *testing.T) {
	r := runSunset(t, nil, "scan", "--snapshot", filepath.Join(t.TempDir(), "none"+hostileText))
	if r.code != ExitUsage {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkLines(t, "stderr", r.stderr, false)
	for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if !strings.HasPrefix(line, "sunset: ") && !strings.HasPrefix(line, "Run 'sunset scan --help'") {
			t.Errorf("error line without the prefix: %q", line)
		}
	}
	if !strings.Contains(r.stderr, "FORGED") {
		t.Errorf("the path is not in the message:\n%s", r.stderr)
	}
}

// TestHostileTranslateText: firewall rules whose ids, descriptions and expressions hold
// escape sequences translate with no control character on stdout or stderr; the source line
// under a diagnostic shows ESC as U+241B, so its caret still points at the right character.
func TestHostileTranslateText(t *testing.T) {
	rules := `[{"id": "r1\u001b[31m\nx", "action": "block", "filter": {"id": "f1", "expression": "http.host eq \"\u001b]0;t\u0007\" and (", "description": "d"}},
	{"id": "r2", "action": "block", "filter": {"id": "f2", "expression": "ip.src eq 1.2.3.4"}}]`
	path := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(path, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{false, true} {
		r := &testRun{outTTY: tty, errTTY: tty, width: 120}
		r.exec(t.Context(), "translate", "--rules", path)
		checkLines(t, "translate stdout", r.stdout, false)
		checkLines(t, "translate stderr", r.stderr, false)
		if !strings.Contains(r.stderr, "\u241b]0;t\u2407") {
			t.Errorf("the source line does not show the escape sequence:\n%s", r.stderr)
		}
	}
	// The error is at the end: the caret stands one column past the source line.
	r := runSunset(t, nil, "translate", "http.host eq \"\x1b[31m\" and (")
	checkLines(t, "translate stderr", r.stderr, false)
	shown := "http.host eq \"\u241b[31m\" and ("
	want := shown + "\n" + strings.Repeat(" ", len([]rune(shown))) + "^\n"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("want the source line and caret\n%s\ngot\n%s", want, r.stderr)
	}
	// A source line starting with "::" is shown after "| ", its caret too.
	r = runSunset(t, nil, "translate", "ip.src in {\n  ::error::FORGED\n}")
	checkLines(t, "translate stderr", r.stderr, false)
	if want := "|   ::error::FORGED\n|      ^\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("want\n%s\ngot\n%s", want, r.stderr)
	}
}
