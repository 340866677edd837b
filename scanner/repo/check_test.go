package repo

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
)

var update = flag.Bool("update", false, "rewrite golden files")

// asOf is the day the golden files were written for.
var asOf = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

const testRepo = "../../testdata/repo"

// goldenLines renders findings one a line: severity, rule, path:line:col, suppression.
func goldenLines(fs []scanner.Finding, root string) string {
	var b strings.Builder
	for _, f := range fs {
		p := strings.TrimPrefix(f.Location.Path, root+"/")
		fmt.Fprintf(&b, "%s %s %s:%d:%d", f.Severity, f.RuleID, p, f.Location.StartLine, f.Location.StartColumn)
		if f.Suppressed {
			fmt.Fprintf(&b, " suppressed(%s)", f.SuppressedBy)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("../../testdata/golden/check", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the findings (go test ./scanner/repo -run %s -update rewrites it):\n--- got\n%s", name, t.Name(), got)
	}
}

func TestRepoGolden(t *testing.T) {
	res, err := Check(context.Background(), Options{Paths: []string{testRepo}, AsOf: asOf, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
	checkGolden(t, "repo.golden", goldenLines(res.Findings, testRepo))
	// A report an earlier check wrote into the tree (renamed) is not checked; a script that
	// runs sunset and names its outputs is.
	if want := []OwnOutput{{Path: testRepo + "/reports/last-check.txt", Kind: OutputJSONReport}}; len(res.Outputs) != 1 || res.Outputs[0] != want[0] {
		t.Errorf("outputs %+v, want %+v", res.Outputs, want)
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		p := strings.TrimPrefix(f.Location.Path, testRepo+"/")
		seen[strings.SplitN(p, "/", 2)[0]], seen[p] = true, true
		if strings.HasPrefix(p, "negative/") {
			t.Errorf("negative file has a finding: %s %s:%d %s", f.RuleID, p, f.Location.StartLine, f.Message)
		}
		if strings.HasPrefix(p, "ignored/") || strings.HasPrefix(p, "node_modules/") || strings.HasSuffix(p, ".tmp") || strings.HasPrefix(p, "reports/") {
			t.Errorf("ignored file was checked: %s", p)
		}
		if f.Fingerprint == "" || f.Title == "" || f.Source != scanner.SourceFile {
			t.Errorf("incomplete finding %+v", f)
		}
	}
	for _, dir := range []string{"terraform", "api", "scripts", ".github-ci.yml", "scripts/sunset-wrapper.sh"} {
		if !seen[dir] {
			t.Errorf("no finding in %s", dir)
		}
	}
	// Every catalog rule a file can show is covered by the test repository.
	c := NewChecker(nil, asOf)
	rules := map[string]bool{}
	for _, f := range res.Findings {
		rules[string(f.RuleID)] = true
	}
	notFromFiles := map[string]bool{
		// Fields of API responses: code reading them breaks, configuration does not hold them.
		"dns-record-zone-fields": true, "dns-record-locked": true,
		// Accounts routes only carry the fields (affected); the object shape is detected instead.
		"dns-error-chain": true, "chacha20-draft-ciphers": true,
	}
	for id := range c.entries {
		if !rules[id] && !notFromFiles[id] {
			t.Errorf("no finding of rule %s in the test repository", id)
		}
	}
}

func TestFingerprintsAreLineIndependent(t *testing.T) {
	c := NewChecker(nil, asOf)
	for _, name := range []string{"terraform/other.tf", "api/export.yaml", "scripts/migrate.sh", "api/waf.json", "terraform/main.tf.json"} {
		data, err := os.ReadFile(filepath.Join(testRepo, name))
		if err != nil {
			t.Fatal(err)
		}
		a := c.CheckFile(name, KindOf(name), data).Findings
		shifted := append([]byte("\n\n\n"), data...)
		if strings.HasSuffix(name, ".json") {
			shifted = append([]byte("   \n\n"), data...)
		}
		b := c.CheckFile(name, KindOf(name), shifted).Findings
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d findings, %d after shifting", name, len(a), len(b))
		}
		for i := range a {
			if a[i].Fingerprint != b[i].Fingerprint {
				t.Errorf("%s: fingerprint of %s changed when lines moved", name, a[i].RuleID)
			}
			if b[i].Location.StartLine != a[i].Location.StartLine+3 && b[i].Location.StartLine != a[i].Location.StartLine+2 {
				t.Errorf("%s: line %d -> %d", name, a[i].Location.StartLine, b[i].Location.StartLine)
			}
		}
	}
	// The same finding in another file has another fingerprint.
	src := []byte(`curl "$API/zones/$Z/filters"`)
	x := c.CheckFile("a.sh", KindText, src).Findings
	y := c.CheckFile("b.sh", KindText, src).Findings
	if len(x) != 1 || len(y) != 1 || x[0].Fingerprint == y[0].Fingerprint {
		t.Errorf("fingerprints must include the path: %v %v", x, y)
	}
}

func TestStdinKinds(t *testing.T) {
	c := NewChecker(nil, asOf)
	res, err := c.CheckReader(strings.NewReader(`resource "cloudflare_filter" "f" { expression = "true" }`), "main.tf", KindTerraform, 0)
	if err != nil || len(res.Findings) != 1 || res.Findings[0].RuleID != "filters" || res.FilesScanned != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = c.CheckReader(strings.NewReader(strings.Repeat("x", 100)), "big", KindText, 10)
	if err != nil || len(res.Errors) != 1 || res.FilesFailed != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := ParseKind("cobol"); err == nil {
		t.Error("ParseKind accepted an unknown kind")
	}
}

func TestWalkLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call := "curl \"$API/zones/$Z/filters\"\n"
	write("a/big.sh", strings.Repeat("# padding\n", 200)+call)
	write("a/small.sh", call)
	write("a/bin.dat", "\x89PNG\r\n\x1a\n"+strings.Repeat("\x00\x01\x02\x03", 50)+call)
	write("b/skip.sh", call)
	write("vendor/x.sh", call)
	write(".terraform/modules/x.sh", call)
	if err := os.Symlink("..", filepath.Join(dir, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("small.sh", filepath.Join(dir, "a", "link.sh")); err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf, MaxFileSize: 1000, Exclude: []string{"b/"}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range res.Findings {
		paths = append(paths, strings.TrimPrefix(f.Location.Path, filepath.ToSlash(dir)+"/"))
	}
	if strings.Join(paths, ",") != "a/small.sh" {
		t.Errorf("findings in %v, want only a/small.sh", paths)
	}
	if len(res.Errors) != 1 || res.Errors[0].What != "size" || !strings.HasSuffix(res.Errors[0].Path, "a/big.sh") {
		t.Errorf("errors %+v", res.Errors)
	}
	if res.FilesSkipped != 3 || res.FilesScanned != 1 || res.FilesFailed != 1 {
		t.Errorf("scanned %d skipped %d failed %d", res.FilesScanned, res.FilesSkipped, res.FilesFailed)
	}
	// Include limits the walk; an explicit file is checked whatever the globs say.
	res, err = Check(context.Background(), Options{Paths: []string{dir, filepath.Join(dir, "b", "skip.sh")}, AsOf: asOf, Include: []string{"*.tf"}})
	if err != nil || len(res.Findings) != 1 || !strings.HasSuffix(res.Findings[0].Location.Path, "b/skip.sh") {
		t.Errorf("%v %+v", err, res.Findings)
	}
	if _, err := Check(context.Background(), Options{Paths: []string{filepath.Join(dir, "missing")}}); err == nil {
		t.Error("a missing path must be an error")
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]Kind{
		"main.tf": KindTerraform, "x.TF": KindTerraform, "prod.tfvars": KindTerraform, "a/b.tf.json": KindTerraformJSON,
		"p.tfvars.json": KindTerraformJSON, "api.json": KindJSON, "ci.yml": KindYAML, "x.yaml": KindYAML, "run.sh": KindShell, "Makefile": KindText, "api.PY": KindPython, "index.d.ts": KindJavaScript, "Rakefile": KindRuby, "mix.exs": KindElixir, "x.php": KindPHP, "main.go": KindGo, "live/prod/terragrunt.hcl": KindTerraform,
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%s) = %s, want %s", name, got, want)
		}
	}
}

// TestLongLines checks positions on a minified file: thousands of paths on one line (the
// benchmark, not this test, measures that the work stays linear).
func TestLongLines(t *testing.T) {
	var b strings.Builder
	for b.Len() < 2<<20 {
		b.WriteString(`{"url":"/client/v4/zones/abc/dns_records","m":"GET"},`)
	}
	b.WriteString(`{"url":"/client/v4/zones/abc/filters"}`)
	c := NewChecker(nil, asOf)
	fs := c.CheckFile("min.js", KindText, []byte(b.String())).Findings
	if len(fs) != 1 || fs[0].RuleID != "filters" || fs[0].Location.StartLine != 1 || fs[0].Location.StartColumn != b.Len()-len(`/client/v4/zones/abc/filters"}`)+1+len("/client/v4/") {
		t.Fatalf("%+v", fs)
	}
}

func TestKindOfContent(t *testing.T) {
	for src, want := range map[string]Kind{
		"#!/bin/sh\ncurl x\n":                 KindShell,
		"#!/usr/bin/env python3\nimport x\n":  KindPython,
		"#!/usr/bin/env -S node --foo\nx()\n": KindJavaScript,
		"#!/usr/bin/ruby -w\n":                KindRuby,
		"#!/usr/bin/awk -f\n":                 KindText,
		"plain text\n":                        KindText,
	} {
		if got := kindOfContent(KindText, []byte(src)); got != want {
			t.Errorf("%q: %s, want %s", src, got, want)
		}
	}
	if got := kindOfContent(KindJSON, []byte("#!/bin/sh\n")); got != KindJSON {
		t.Errorf("a named kind stays: %s", got)
	}
	for _, name := range KindNames() {
		if k, err := ParseKind(strings.ToUpper(name)); err != nil || string(k) != name {
			t.Errorf("ParseKind(%s) = %s, %v", name, k, err)
		}
	}
	if _, err := ParseKind("cobol"); err == nil || !strings.Contains(err.Error(), "python") {
		t.Errorf("ParseKind(cobol): %v", err)
	}
}

// TestNestedResourceIsNotARoute: a segment named like a deprecated route's start, nested in
// another route, is not that route.
func TestNestedResourceIsNotARoute(t *testing.T) {
	c := NewChecker(nil, asOf)
	for src, want := range map[string]int{
		`post("accounts/#{id}/access/organizations/revoke_user")`:         0,
		`get("https://api.cloudflare.com/client/v4/organizations/abc")`:   1,
		`curl "$API/organizations/abc/members"`:                           1,
		`fetch("/client/v4/accounts/x/access/organizations/revoke_user")`: 0,
	} {
		if got := len(c.CheckFile("x.txt", KindText, []byte(src)).Findings); got != want {
			t.Errorf("%s: %d findings, want %d", src, got, want)
		}
	}
}
