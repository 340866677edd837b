package repo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/repo"
)

var ownAsOf = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

// ownOutput is one file sunset wrote, rendered by its real writer.
type ownOutput struct {
	name string
	kind repo.OutputKind
	data []byte
}

// everyOutput renders every file sunset writes: the baseline and every report format of a
// check of the test repository, every report format (with the plan where a format has one)
// of the demo account's scan, its snapshot, and its plan as plan.json, plan.md and Terraform.
func everyOutput(t *testing.T) []ownOutput {
	t.Helper()
	res, err := repo.Check(context.Background(), repo.Options{Paths: []string{"../../testdata/repo"}, AsOf: ownAsOf})
	if err != nil {
		t.Fatal(err)
	}
	snap := seed.Demo()
	live := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: ownAsOf})
	plan := migrate.Build(snap, live, migrate.Options{AsOf: ownAsOf})
	sources := map[string]*reports.Report{
		"check": reports.NewReport(reports.Input{
			Version: "1.2.3", AsOf: ownAsOf, Source: reports.Source{Kind: reports.SourceFiles, Paths: []string{"."}},
			Findings: res.Findings, Counts: reports.Counts{FilesScanned: res.FilesScanned}, FailOn: scanner.SeverityWarning,
			Rules: catalog.Default(),
		}),
		"scan": reports.NewReport(reports.Input{
			Version: "1.2.3", AsOf: ownAsOf, Source: reports.Source{Kind: reports.SourceDemo},
			Findings: live.Findings, Counts: reports.Counts{ZonesScanned: len(snap.Zones)}, FailOn: scanner.SeverityWarning,
			Rules: catalog.Default(),
		}),
		"empty": reports.NewReport(reports.Input{Version: "1.2.3", AsOf: ownAsOf}),
	}
	kinds := map[string]repo.OutputKind{
		"json": repo.OutputJSONReport, "sarif": repo.OutputSARIF, "gitlab": repo.OutputGitLab, "junit": repo.OutputJUnit,
		"csv": repo.OutputCSV, "tsv": repo.OutputTSV, "table": repo.OutputTable, "line": repo.OutputLine, "github": repo.OutputGitHub,
		"markdown": repo.OutputMarkdown, "html": repo.OutputHTML,
	}
	var outs []ownOutput
	var b bytes.Buffer
	for _, src := range []string{"check", "scan", "empty"} {
		for _, format := range reports.Formats() {
			kind, ok := kinds[format]
			if !ok {
				t.Fatalf("format %s: which output kind is it? (add it to RecogniseOutput and here)", format)
			}
			for _, withPlan := range []bool{false, true} {
				r, err := reports.New(format, reports.Options{})
				if err != nil {
					t.Fatal(err)
				}
				name := src + "." + format
				if withPlan {
					if _, ok := r.(reports.PlanAware); !ok || src == "empty" {
						continue
					}
					r, name = reports.WithPlan(r, plan), name+"+plan"
				}
				b.Reset()
				if err := r.Write(&b, sources[src]); err != nil {
					t.Fatal(err)
				}
				outs = append(outs, ownOutput{name, kind, bytes.Clone(b.Bytes())})
			}
		}
		r, err := reports.New("table", reports.Options{Plain: true}) // the table piped: TSV
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		if err := r.Write(&b, sources[src]); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, ownOutput{src + ".table-piped", repo.OutputTSV, bytes.Clone(b.Bytes())})
	}

	b.Reset()
	if err := repo.NewBaseline(res.Findings).Write(&b); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, ownOutput{"baseline", repo.OutputBaseline, bytes.Clone(b.Bytes())})
	b.Reset()
	if err := snap.Write(&b); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, ownOutput{"snapshot", repo.OutputSnapshot, bytes.Clone(b.Bytes())})
	b.Reset()
	sw, err := inventory.NewStreamWriter(&b, "demo", ownAsOf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range snap.Zones {
		sw.Zone(&snap.Zones[i])
	}
	if err := sw.Finish(snap); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, ownOutput{"snapshot-stream", repo.OutputSnapshot, bytes.Clone(b.Bytes())})
	b.Reset()
	if err := plan.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, ownOutput{"plan.json", repo.OutputPlanJSON, bytes.Clone(b.Bytes())})
	b.Reset()
	if err := plan.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	outs = append(outs, ownOutput{"plan.md", repo.OutputPlanMarkdown, bytes.Clone(b.Bytes())})
	files, err := terraform.Files(plan)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		outs = append(outs, ownOutput{"terraform/" + n, repo.OutputPlanTerraform, files[n]})
	}
	return outs
}

// nothingToFind are outputs without a finding that need not be recognised: checking them
// finds nothing either (an empty GitLab report is "[]").
var nothingToFind = map[string]bool{"empty.github": true, "empty.gitlab": true, "empty.table": true, "empty.line": true}

// TestRecogniseEveryWriter renders every file sunset writes with its real writer and checks
// that RecogniseOutput knows it, under any name: when a writer changes its opening, this
// fails rather than `sunset check` reporting the file.
func TestRecogniseEveryWriter(t *testing.T) {
	c := repo.NewChecker(nil, ownAsOf)
	for _, o := range everyOutput(t) {
		kind, ok := repo.RecogniseOutput(o.data, true)
		if !ok && nothingToFind[o.name] {
			continue
		}
		if !ok || kind != o.kind {
			t.Errorf("%s: recognised as %q (%v), want %q; it starts:\n%.400s", o.name, kind, ok, o.kind, o.data)
			continue
		}
		// CRLF line ends (a checkout's conversion) change nothing.
		crlf := bytes.ReplaceAll(bytes.ReplaceAll(o.data, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		if kind, _ := repo.RecogniseOutput(crlf, true); kind != o.kind {
			t.Errorf("%s with CRLF line ends: recognised as %q", o.name, kind)
		}
		// Only the head is needed, except for GitHub annotations, which have none.
		if o.kind != repo.OutputGitHub && len(o.data) > 64<<10 {
			if kind, _ := repo.RecogniseOutput(o.data[:64<<10], false); kind != o.kind {
				t.Errorf("%s cut to its first 64 KiB: recognised as %q", o.name, kind)
			}
		}
		// Reformatted JSON (compact, as a tool might rewrite it) is still what it was.
		if (o.data[0] == '{' || o.data[0] == '[') && o.name != "snapshot-stream" {
			var compact bytes.Buffer
			if err := json.Compact(&compact, o.data); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			if kind, _ := repo.RecogniseOutput(compact.Bytes(), true); kind != o.kind {
				t.Errorf("%s compacted: recognised as %q", o.name, kind)
			}
		}
	}
	// The outputs that quote deprecated usage are what a check would otherwise report: the
	// recognition is what keeps them out.
	for _, o := range everyOutput(t) {
		if strings.HasPrefix(o.name, "check.") && o.name != "check.table" {
			if fs := c.CheckFile(o.name, repo.KindOf(o.name), o.data).Findings; len(fs) == 0 {
				t.Errorf("%s: no findings when checked as a file: the test shows nothing", o.name)
			}
		}
	}
}

// TestRecogniseLeavesConfigAlone checks files that name sunset, or open like an output
// without being one: they are checked, and their deprecated usage found.
func TestRecogniseLeavesConfigAlone(t *testing.T) {
	const call = "curl -X GET \"$API/zones/$ZONE_ID/firewall/rules\"\n"
	const rule = `{"id": "372e67954025e0ba6aaa6d586b9e0b59", "paused": false, "action": "block", "filter": {"id": "4ae338944d6143378c3cf05a7c77d983", "expression": "ip.src eq 192.0.2.1"}}`
	cases := map[string]string{
		// JSON exports and tools' files with sunset's words in them.
		"export.json":     `{"tool": {"name": "sunset"}, "result": [` + rule + `]}`,
		"named.json":      `{"schema_version": 1, "tool": {"name": "sunset-exporter"}, "result": [` + rule + `]}`,
		"other.sarif":     `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "tflint"}}, "results": [{"message": {"text": "GET /zones/:zone_id/firewall/rules"}}]}]}`,
		"quality.json":    `[{"type": "issue", "check_name": "firewall", "description": "x", "categories": ["Security"], "severity": "major", "fingerprint": "f", "location": {}, "rule": ` + rule + `}]`,
		"entries.json":    `{"version": 1, "entries": [` + rule + `]}`,
		"versioned.json":  `{"schema_version": 3, "result": [` + rule + `]}`,
		"seedlike.json":   `{"schema_version": 1, "accounts": [{"name": "x"}], "result": [` + rule + `]}`,
		"firewall.yaml":   "# exported for sunset\nresult:\n  - id: 372e67954025e0ba6aaa6d586b9e0b59\n    paused: false\n    action: block\n    filter:\n      id: 4ae338944d6143378c3cf05a7c77d983\n      expression: ip.src eq 192.0.2.1\n",
		"terraform.tf":    "# Managed by sunset's plan, reviewed by hand\n# Generated by sunset plan. (copied into our configuration)\nresource \"cloudflare_firewall_rule\" \"r\" {}\n",
		"script.sh":       "#!/bin/sh\n# sunset: 2 errors, 1 warning, 0 notices\n" + call,
		"notes.md":        "## sunset: how we migrate\n\n" + call,
		"plan.md":         "# Migration plan\n\nWe still call the old endpoint:\n\n" + call,
		"report-ish.md":   "## sunset: 2 errors, 1 warning, 0 notices\n" + call,
		"rows.tsv":        "severity\trule_id\tzone\n" + call,
		"rows.csv":        "severity,rule_id,title\n" + call,
		"page.html":       "<!DOCTYPE html>\n<html><head><meta name=\"generator\" content=\"sunsetter 2\"><title>x</title></head><body>" + call + "</body></html>\n",
		"suite.xml":       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sunset-tests\">\n<!-- " + call + " -->\n</testsuites>\n",
		"ci.log":          "::error title=build::failed\n" + call + "sunset: 1 file scanned\n",
		"readme.md":       "<!-- Generated by sunset, edited since -->\n" + call,
		"table-ish.txt":   "Calls\nSEVERITY  RULE\n" + call,
		"tool-name.txt":   "sunset " + call,
		"baseline.txt":    `{"version": 1, "entries": [{"rule_id": "x", "fingerprint": "y"}]}` + "\n" + call,
		"plan-like.json":  `{"schema_version": 1, "as_of": "2025-01-01", "accounts": 1, "result": [` + rule + `]}`,
		"empty-list.json": `{"schema_version": 1, "accounts": [], "zones": [], "result": [` + rule + `]}`,
	}
	c := repo.NewChecker(nil, ownAsOf)
	for name, body := range cases {
		if kind, ok := repo.RecogniseOutput([]byte(body), true); ok {
			t.Errorf("%s: recognised as sunset's %s", name, kind)
		}
		if fs := c.CheckFile(name, repo.KindOf(name), []byte(body)).Findings; len(fs) == 0 {
			t.Errorf("%s: no findings: the case shows nothing", name)
		}
	}
}

// TestCheckSkipsOwnOutputs checks a tree holding a configuration and what earlier runs wrote
// into it, renamed: only the configuration is checked, the outputs are listed in path order
// and counted as skipped, and an output over the size limit is skipped, not an error.
func TestCheckSkipsOwnOutputs(t *testing.T) {
	dir := t.TempDir()
	config := "curl -X GET \"$API/zones/$ZONE_ID/firewall/rules\"\n"
	files := map[string][]byte{"deploy.sh": []byte(config)}
	want := []repo.OwnOutput{}
	for _, o := range everyOutput(t) {
		switch o.name {
		case "check.json", "check.sarif", "baseline", "scan.html+plan", "terraform/README.md", "plan.md":
			name := "out/" + strings.NewReplacer("/", "-", ".", "-", "+", "-").Replace(o.name) + ".txt"
			files[name] = o.data
			want = append(want, repo.OwnOutput{Path: filepath.ToSlash(filepath.Join(dir, name)), Kind: o.kind})
		}
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Path < want[j].Path })
	for _, limit := range []int64{0, int64(len(config)) + 1} {
		res, err := repo.Check(context.Background(), repo.Options{Paths: []string{dir}, AsOf: ownAsOf, MaxFileSize: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Errors) != 0 || res.FilesScanned != 1 || res.FilesSkipped != len(want) {
			t.Errorf("limit %d: errors %v, scanned %d, skipped %d (want 1 and %d)", limit, res.Errors, res.FilesScanned, res.FilesSkipped, len(want))
		}
		if got, _ := json.Marshal(res.Outputs); !bytes.Equal(got, must(json.Marshal(want))) {
			t.Errorf("limit %d: outputs\n%s\nwant\n%s", limit, got, must(json.Marshal(want)))
		}
		for _, f := range res.Findings {
			if !strings.HasSuffix(f.Location.Path, "/deploy.sh") {
				t.Errorf("limit %d: finding in %s", limit, f.Location.Path)
			}
		}
		if len(res.Findings) == 0 {
			t.Errorf("limit %d: the configuration's finding is missing", limit)
		}
	}
	// Standard input: the same judgement.
	for _, o := range everyOutput(t)[:1] {
		res, err := repo.NewChecker(nil, ownAsOf).CheckReader(bytes.NewReader(o.data), "<stdin>", repo.KindText, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 || len(res.Outputs) != 1 || res.Outputs[0].Kind != o.kind || res.FilesScanned != 0 {
			t.Errorf("stdin %s: findings %d outputs %v scanned %d", o.name, len(res.Findings), res.Outputs, res.FilesScanned)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzRecogniseOutput feeds arbitrary heads to the recognition: it never panics, and what it
// recognises it recognises the same way again.
func FuzzRecogniseOutput(f *testing.F) {
	for _, s := range []string{
		`{"version": 1, "entries": [{"fingerprint": "a", "rule_id": "b"}]}`,
		`{"schema_version": 1, "accounts": null, "zones": [{"zone": {}}]}`,
		`{"schema_version": 1, "as_of": "x", "source": "y", "accounts": [], "zones": [], "summary": {}}`,
		`[{"type": "issue", "check_name": "a", "description": "b", "categories": ["Compatibility"], "severity": "x", "fingerprint": "f", "location": {}}]`,
		"::error title=x::y\nsunset: 1 file scanned\n",
		"Zone x\nSEVERITY  RULE\n────────────────────────\n",
		"#!/bin/sh\n# Generated by sunset plan.\n",
		"<?xml version=\"1.0\"?>\n<testsuites name=\"sunset\" tests=\"1\">",
		"{\"a\": [1, 2, {\"b\": \"\\u00",
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, complete bool) {
		k1, ok1 := repo.RecogniseOutput(data, complete)
		k2, ok2 := repo.RecogniseOutput(data, complete)
		if k1 != k2 || ok1 != ok2 || ok1 != (k1 != "") {
			t.Fatalf("%q: %q %v then %q %v", data, k1, ok1, k2, ok2)
		}
	})
}
