package cli

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/demo from the current output")

// goldenDir holds the demo's golden outputs, at the repository root (this package is four
// levels down).
var goldenDir = filepath.Join("..", "..", "..", "..", "testdata", "golden", "demo")

// checkGolden compares got with the golden file name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept the new output if intended):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs: trailing bytes)"
}

// TestDemoGolden runs the demo three ways (the JSON report on stdout, the table piped, the
// table on a 120-column terminal without colour) and compares each with its golden file.
// The JSON report is produced twice, the second time also to a --report file, and all three
// must be byte-identical (the tables render the same report); the golden files themselves
// come from earlier runs.
func TestDemoGolden(t *testing.T) {
	cases := []struct {
		name   string
		golden string
		outTTY bool
		width  int
		args   []string
		runs   int
	}{
		{name: "json", golden: "report.json.golden", args: []string{"--format", "json"}, runs: 2},
		{name: "table-piped", golden: "table-piped.golden"},
		{name: "table-tty", golden: "table-tty-120.golden", outTTY: true, width: 120, args: []string{"--color", "never"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"demo", "--as-of", "2025-02-01", "--report", ""}, c.args...)
			outs := make([]string, max(c.runs, 1))
			for i := range outs {
				runArgs, wantErr := args, ""
				if i == 1 {
					// The second run also writes the report file, which must hold the same bytes.
					report := filepath.Join(t.TempDir(), "demo-report.json")
					runArgs = append(slices.Clone(args), "--report", report, "--html", "")
					wantErr = "report written to " + report + "\n"
					defer func() {
						if file, err := os.ReadFile(report); err != nil || string(file) != outs[0] {
							t.Errorf("--report file differs from --format json (err %v)", err)
						}
					}()
				}
				r := (&testRun{outTTY: c.outTTY, width: c.width}).exec(context.Background(), runArgs...)
				if r.code != ExitOK {
					t.Fatalf("exit %d, want 0 (the demo is not a gate by default); stderr:\n%s", r.code, r.stderr)
				}
				// The closing summary line comes last, after the files written.
				last := lastLine(r.stderr)
				if got := strings.TrimSuffix(r.stderr, last+"\n"); got != wantErr || !strings.HasSuffix(last, "no gate (--fail-on none); complete: 6 zones scanned") {
					t.Errorf("stderr %q, want %q then the summary line (no terminal, so no progress line)", r.stderr, wantErr)
				}
				outs[i] = r.stdout
			}
			for _, o := range outs[1:] {
				if o != outs[0] {
					t.Fatalf("two demo runs differ:\n%s", firstDiff(outs[0], o))
				}
			}
			if strings.Contains(outs[0], "\x1b") {
				t.Error("output carries escape sequences without colour")
			}
			if strings.Contains(outs[0], "127.0.0.1") {
				t.Error("output names the emulator's loopback address, which changes every run")
			}
			checkGolden(t, c.golden, outs[0])
		})
	}
}

// TestDemoGoldenShapes checks what the golden outputs must show whatever they are
// regenerated to: the JSON report reads back as a demo report, the piped table is
// tab-separated rows with the documented header, and the terminal table fits its width.
func TestDemoGoldenShapes(t *testing.T) {
	if *update {
		t.Skip("golden files are being rewritten")
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(goldenDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rep, err := reports.ReadReport(strings.NewReader(read("report.json.golden")))
	if err != nil {
		t.Fatalf("golden JSON report does not read back: %v", err)
	}
	if rep.Source.Kind != reports.SourceDemo || rep.Source.Target != "" || rep.AsOf != "2025-02-01" {
		t.Errorf("golden report source %+v as_of %q, want kind demo without target, as of 2025-02-01", rep.Source, rep.AsOf)
	}
	if rep.Summary.Incomplete || len(rep.Errors) > 0 || rep.Summary.ZonesScanned != 6 || rep.Summary.Accounts != 3 {
		t.Errorf("golden report summary %+v errors %v, want 6 zones, 3 accounts, complete", rep.Summary, rep.Errors)
	}
	if rep.Summary.FindingsTotal != len(rep.Findings.Slice()) || len(rep.Findings.Slice()) == 0 {
		t.Errorf("golden report has %d findings, summary says %d", len(rep.Findings.Slice()), rep.Summary.FindingsTotal)
	}

	rows := strings.Split(strings.TrimSuffix(read("table-piped.golden"), "\n"), "\n")
	if rows[0] != reports.TSVHeader {
		t.Errorf("piped table header %q", rows[0])
	}
	if len(rows)-1 != len(rep.Findings.Slice()) {
		t.Errorf("piped table has %d rows, the report %d findings", len(rows)-1, len(rep.Findings.Slice()))
	}
	for i, row := range rows[1:] {
		if n, want := strings.Count(row, "\t"), strings.Count(reports.TSVHeader, "\t"); n != want {
			t.Errorf("piped row %d has %d tabs, want %d: %q", i+1, n, want, row)
		}
	}

	tty := read("table-tty-120.golden")
	for i, line := range strings.Split(strings.TrimSuffix(tty, "\n"), "\n") {
		if w := len([]rune(line)); w > 120 {
			t.Errorf("terminal table line %d is %d columns wide, over 120: %q", i+1, w, line)
		}
	}
	if strings.Contains(tty, "\t") {
		t.Error("terminal table contains tabs: it fell back to rows")
	}
}
