package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// deepFiles are valid documents holding a firewall rule beside a value nested past a bound:
// maxJSONDepth (500) for sunset's JSON parser and tree, 10,000 for yaml.v3's own parser.
func deepFiles() map[string]string {
	rule := `{"id":"r1","action":"block","filter":{"id":"f1","expression":"ip.src eq 192.0.2.1"}}`
	deepJSON := strings.Repeat("[", 501) + strings.Repeat("]", 501)
	return map[string]string{
		"export.json":     `{"result":[` + rule + `],"deep":` + deepJSON + `}`,
		"main.tf.json":    `{"resource":{"cloudflare_firewall_rule":{"a":{"action":"block"}}},"x":` + deepJSON + `}`,
		"shallow.yaml":    "rules:\n  - " + rule + "\ndeep: " + strings.Repeat("[", 501) + strings.Repeat("]", 501) + "\n",
		"yamlv3deep.yaml": "rules:\n  - " + rule + "\ndeep: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
	}
}

// TestDeepDocumentsMakeTheRunIncomplete: a valid file nested past a bound is not a silent
// parse notice: the text checks still run over it, and the file is a run error (exit 4).
func TestDeepDocumentsMakeTheRunIncomplete(t *testing.T) {
	dir := t.TempDir()
	for name, body := range deepFiles() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n# curl -X GET \"$API/zones/$Z/firewall/rules\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, e := range res.Errors {
		failed[filepath.Base(e.Path)] = e.What + ": " + e.Message
	}
	textFound := map[string]bool{}
	for _, f := range res.Findings {
		if f.RuleID == vocab.FirewallRules && f.Resource.Kind == "endpoint" {
			textFound[filepath.Base(f.Location.Path)] = true
		}
	}
	for name := range deepFiles() {
		if msg := failed[name]; !strings.HasPrefix(msg, "parse: ") || !strings.Contains(msg, "not fully read") {
			t.Errorf("%s: run error %q, want a parse error (not fully read)", name, msg)
		}
		if !textFound[name] {
			t.Errorf("%s: the text matcher did not run over the file", name)
		}
	}
	if !res.Incomplete() || res.FilesScanned != len(deepFiles()) {
		t.Errorf("incomplete %v, scanned %d", res.Incomplete(), res.FilesScanned)
	}
	// Excluding the file is the way out.
	res, err = Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf, Exclude: []string{"*.json", "*.yaml"}})
	if err != nil || res.Incomplete() {
		t.Errorf("excluded: %v %+v", err, res.Errors)
	}
	// Standard input too.
	c := NewChecker(nil, asOf)
	r, err := c.CheckReader(strings.NewReader(deepFiles()["export.json"]), "-", KindJSON, 0)
	if err != nil || !r.Incomplete() {
		t.Errorf("stdin: %v %+v", err, r)
	}
	// An invalid file is still only a notice.
	fr := c.CheckFile("bad.json", KindJSON, []byte(`{"expression": `))
	if fr.Unread != "" || len(fr.Findings) != 1 || fr.Findings[0].RuleID != RuleParse {
		t.Errorf("invalid JSON: %+v", fr)
	}
}

// TestRefusedFiles: what the walk and the ignore files read is a bounded regular file; a
// device, a FIFO or a linked ignore file is refused by name without blocking.
func TestRefusedFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte("curl \"$API/zones/$Z/filters\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res *Result
		err error
	}
	run := func(opts Options) *Result {
		t.Helper()
		done := make(chan outcome, 1)
		go func() { r, err := Check(context.Background(), opts); done <- outcome{r, err} }()
		select {
		case o := <-done:
			if o.err != nil {
				t.Fatal(o.err)
			}
			return o.res
		case <-time.After(20 * time.Second):
			t.Fatal("check blocked")
		}
		return nil
	}
	res := run(Options{Paths: []string{dir}, AsOf: asOf})
	var got []string
	for _, e := range res.Errors {
		got = append(got, strings.TrimPrefix(e.Path, filepath.ToSlash(dir)+"/")+" "+e.What)
	}
	if strings.Join(got, ",") != ".gitignore ignore-file,sub/.gitignore ignore-file" || len(res.Findings) != 1 {
		t.Errorf("errors %v (%+v), findings %d", got, res.Errors, len(res.Findings))
	}
	if res = run(Options{Paths: []string{dir}, AsOf: asOf, NoGitignore: true}); res.Incomplete() {
		t.Errorf("--no-gitignore: %+v", res.Errors)
	}
	res = run(Options{Paths: []string{"/dev/zero", filepath.Join(dir, "sub", ".gitignore")}, AsOf: asOf})
	if len(res.Errors) != 2 || res.Errors[0].What != "read" || !strings.Contains(res.Errors[0].Message, "not a regular file") {
		t.Errorf("named devices: %+v", res.Errors)
	}
	// A linked configuration file in the tree is refused, one named by the user is followed.
	cfg := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(cfg, []byte("fail_on: notice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ConfigFileName)
	if err := os.Symlink(cfg, link); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfigInTree(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("LoadConfigInTree through a link: %v", err)
	}
	if c, err := LoadConfig(link); err != nil || c.FailOn != "notice" {
		t.Errorf("LoadConfig: %v", err)
	}
	if _, err := LoadConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("LoadConfig(/dev/zero): %v", err)
	}
}

// TestDeepHCLIsNotParsed: Terraform nested or chained past what hclsyntax's recursion (and
// the walks of its trees) survive used to end the process with a fatal stack overflow; such
// a file is now a run error (not fully read) with its text checks run, and real nesting
// still parses.
func TestDeepHCLIsNotParsed(t *testing.T) {
	c := NewChecker(nil, asOf)
	c.tf.parseAll = true
	deep := map[string]string{
		"brackets":           strings.Repeat("[", 200000) + strings.Repeat("]", 200000),
		"parentheses, lines": strings.Repeat("(\n", 200000) + "1" + strings.Repeat(")", 200000),
		"unary":              strings.Repeat("- ", 200000) + "1",
		"conditionals":       strings.Repeat("a ? b : ", 200000) + "c",
		"sums":               strings.Repeat("1 + ", 200000) + "1",
		"interpolations":     strings.Repeat(`"${`, 200000) + "1" + strings.Repeat(`}"`, 200000),
		"indexes":            "a" + strings.Repeat("[0]", 200000),
		"heredoc template":   "<<EOT\n" + strings.Repeat("${[", 2000) + strings.Repeat("]}", 2000) + "\nEOT",
	}
	for name, expr := range deep {
		src := "resource \"cloudflare_filter\" \"f\" {\n  expression = " + expr + "\n}\n# curl \"$API/zones/$Z/filters\"\n"
		fr := c.CheckFile("a.tf", KindTerraform, []byte(src))
		if !strings.Contains(fr.Unread, "nesting deeper than the HCL parser is given") {
			t.Errorf("%s: unread %q", name, fr.Unread)
		}
		if len(fr.Findings) < 2 { // the parse notice and the text match
			t.Errorf("%s: findings %+v", name, fr.Findings)
		}
	}
	fine := map[string]string{
		"nested lists": strings.Repeat("[", 50) + strings.Repeat("]", 50),
		"heredoc":      "<<-EOT\n  " + strings.Repeat("(((( - - - ? : [[[ ", 1000) + "\n  EOT",
		"long list":    "[" + strings.Repeat(`"a-b-c", 1 + 2, `, 20000) + "]",
		"comments":     "1\n" + strings.Repeat("# [[[[ ((((\n/* ]]] { */\n", 5000),
	}
	for name, expr := range fine {
		src := "resource \"cloudflare_filter\" \"f\" {\n  expression = " + expr + "\n}\n"
		if fr := c.CheckFile("a.tf", KindTerraform, []byte(src)); fr.Unread != "" {
			t.Errorf("%s: unread %q", name, fr.Unread)
		}
	}
}

// deepCode is a call of the firewall rules path nested n levels deep in each language the
// readers know: parentheses, or command substitutions in shell.
func deepCode(n int) map[string]string {
	o, c := strings.Repeat("(", n), strings.Repeat(")", n)
	return map[string]string{
		"deep.py":  "import requests\nrequests.get(" + o + "'/zones/' + z + '/firewall/rules'" + c + ")\n",
		"deep.js":  "fetch(" + o + "'/zones/' + z + '/firewall/rules'" + c + ")\n",
		"deep.php": "<?php\n$c->get(" + o + "'/zones/' . $z . '/firewall/rules'" + c + ");\n",
		"deep.rb":  "c.get(" + o + "'/zones/' + z + '/firewall/rules'" + c + ")\n",
		"deep.ex":  "Req.get(" + o + "\"/zones/\" <> z <> \"/firewall/rules\"" + c + ")\n",
		"deep.go":  "package p\n\nvar _ = c.Get(" + o + "\"/zones/\" + z + \"/firewall/rules\"" + c + ")\n",
		"deep.sh":  "curl " + strings.Repeat("\"$(echo ", n) + "/zones/$z/firewall/rules" + strings.Repeat(")\"", n) + "\n",
	}
}

// TestDeepCodeIsFoundOrIncomplete: a path nested past what a reader follows never passes
// silently. Nested 200 levels (code people or generators write), every reader finds it; past
// a reader's bound (100,000 levels), the file is found or is a run error naming it (exit 4).
func TestDeepCodeIsFoundOrIncomplete(t *testing.T) {
	for _, n := range []int{200, 100000} {
		dir := t.TempDir()
		for name, src := range deepCode(n) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		found, failed := map[string]bool{}, map[string]string{}
		for _, f := range res.Findings {
			if f.RuleID == vocab.FirewallRules {
				found[filepath.Base(f.Location.Path)] = true
			}
		}
		for _, e := range res.Errors {
			failed[filepath.Base(e.Path)] = e.What + ": " + e.Message
		}
		for name := range deepCode(n) {
			msg := failed[name]
			switch {
			case n == 200 && !found[name]:
				t.Errorf("%d levels, %s: not found (run error %q)", n, name, msg)
			case !found[name] && !strings.HasPrefix(msg, "parse: not fully read"):
				t.Errorf("%d levels, %s: neither found nor a run error (%q)", n, name, msg)
			}
		}
	}
}

// TestStructureBounds: a file whose structure is past its kind's bound (minified or
// generated: about a token a byte) is text-checked and a run error naming it, never read
// into gigabytes; a large Terraform file of ordinary blocks is read, as its blocks are
// parsed one at a time and each is small.
func TestStructureBounds(t *testing.T) {
	text := "https://api.cloudflare.com/client/v4/zones/0123/firewall/rules"
	block := "resource \"cloudflare_record\" \"r%d\" {\n  zone_id = var.z\n  name    = \"h%d\"\n  type    = \"A\"\n  content = \"192.0.2.1\"\n}\n"
	var blocks strings.Builder
	for i := 0; blocks.Len() < 6<<20; i++ {
		fmt.Fprintf(&blocks, block, i, i)
	}
	files := map[string]string{
		"bundle.js": "fetch(\"/zones/\" + z + \"/filters\"); // " + text + "\n" + strings.Repeat("a;", structureBound(KindJavaScript)/2+1000),
		"big.tf": "locals {\n  rules = [" + strings.Repeat("{expression = \"ip.geoip.country eq 1\", action = \"log\"}, ", structureBound(KindTerraform)/10) +
			"]\n}\n# " + text + "\n",
		"many.tf": blocks.String() + "resource \"cloudflare_filter\" \"f\" {\n  zone_id    = var.z\n  expression = \"ip.geoip.country eq \\\"XX\\\"\"\n}\n",
	}
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf, MaxFileSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, e := range res.Errors {
		failed[filepath.Base(e.Path)] = e.What + ": " + e.Message
	}
	found := map[string][]string{}
	for _, f := range res.Findings {
		found[filepath.Base(f.Location.Path)] = append(found[filepath.Base(f.Location.Path)], string(f.RuleID))
	}
	for _, name := range []string{"bundle.js", "big.tf"} {
		if !strings.Contains(failed[name], "not fully read") || !strings.Contains(failed[name], "tokens") {
			t.Errorf("%s: run error %q, want not fully read past the bound", name, failed[name])
		}
		if !slices.Contains(found[name], string(vocab.FirewallRules)) {
			t.Errorf("%s: findings %v, want the text check's", name, found[name])
		}
	}
	if failed["many.tf"] != "" || !slices.Contains(found["many.tf"], string(vocab.Filters)) {
		t.Errorf("many.tf: run error %q, findings %v: want it read", failed["many.tf"], found["many.tf"])
	}
}
