package repo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// seeds adds the test repository's files of the given extensions as fuzz seeds.
func seeds(f *testing.F, exts ...string) {
	_ = filepath.WalkDir(testRepo, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, e := range exts {
			if filepath.Ext(p) == e {
				if data, err := os.ReadFile(p); err == nil {
					f.Add(data)
				}
			}
		}
		return nil
	})
}

// FuzzShapes feeds arbitrary bytes to the JSON and YAML shape detector (and the Terraform JSON
// reader): no panic, and every finding has a position inside the input.
func FuzzShapes(f *testing.F) {
	seeds(f, ".json", ".yaml", ".yml")
	f.Add([]byte(`{"a":[{"type":"SRV","data":{"service":1}}],"b":"\ud83d\ude00\u0000"}`))
	f.Add([]byte("a: &x [*x]\nb: *x\n"))
	f.Add([]byte("rules:\n- action: block\n  expression: >-\n    (ip.geoip.asnum eq 1) or\n\n    ip.geoip.country eq \"T1\"\n- expression: \"a\n  or cf.threat_score gt 1\"\n"))
	f.Add([]byte(`{"module":{"m":{"records":[{"type":"SRV","data":{"service":"s","proto":"p"}}],"rules":[{"expression":"ip.geoip.asnum eq 1"}]}},"x":{"type":"cloudflare:index:FirewallRule","properties":{}}}`))
	c := NewChecker(nil, asOf)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{KindJSON, KindYAML, KindTerraformJSON} {
			for _, fd := range c.CheckFile("f", k, data).Findings {
				checkInside(t, k, data, fd)
			}
		}
	})
}

// FuzzText feeds arbitrary bytes to the text matcher, suppressions and the HCL reader.
func FuzzText(f *testing.F) {
	seeds(f, ".sh", ".py", ".go", ".js", ".md", ".tf")
	f.Add([]byte("curl -X \\\n POST /zones/${a}/filters/{{ x }}/<id> # sunset:ignore filters until=2020-01-01 r\n"))
	f.Add([]byte("/zones/{/zones/${/accounts/</organizations/"))
	f.Add([]byte("# list\nip.geoip.country eq \"T1\"\n\n(ip.src eq 1.1.1.1\r\n) or ip.geoip.asnum eq 1 or cf.threat_score gt 1\n"))
	c := NewChecker(nil, asOf)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{KindText, KindTerraform} {
			for _, fd := range c.CheckFile("f", k, data).Findings {
				checkInside(t, k, data, fd)
			}
		}
	})
}

// FuzzTerraform feeds arbitrary bytes to the Terraform readers with the prefilter off, so
// every input is parsed by hcl/v2 (native syntax) and the JSON reader.
func FuzzTerraform(f *testing.F) {
	seeds(f, ".tf", ".tfvars")
	f.Add([]byte("resource \"cloudflare_record\" \"r\" {\n  type = \"SRV\"\n  data { service = \"${x}\" }\n}\n"))
	f.Add([]byte(`{"resource":{"cloudflare_filter":{"a":{"expression":"${var.x}"}}}}`))
	f.Add([]byte("resource \"cloudflare_filter\" \"f\" {\n  expression = <<-EOT\n    ip.geoip.asnum eq ${var.a}\n    or ${x} ip.geoip.country\n  EOT\n}\n" +
		"module \"m\" {\n  r = tomap({ a = { type = \"SRV\", data = { name = \"x\" } } })\n  rules = [{ expression = \"cf.threat_score gt 1\" }]\n}\n"))
	c := NewChecker(nil, asOf)
	c.tf.parseAll = true
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{KindTerraform, KindTerraformJSON} {
			for _, fd := range c.CheckFile("f", k, data).Findings {
				checkInside(t, k, data, fd)
			}
		}
	})
}

// checkInside fails on a finding whose position is not inside data: lines from 1 to the
// number of lines, columns from 1, the end not before the start.
func checkInside(t *testing.T, k Kind, data []byte, fd scanner.Finding) {
	t.Helper()
	l := fd.Location
	lines := bytes.Count(data, []byte("\n")) + 1
	if l == nil || l.StartLine < 1 || l.StartColumn < 1 || l.EndLine < l.StartLine || l.StartLine > lines {
		t.Fatalf("%s: bad location %+v (%d lines)", k, l, lines)
	}
}

// FuzzSuppressions checks the suppression sweep against the direct rule (a suppression covers
// its target line and, on a line of its own, the blocks starting there; the first in the file
// names the finding) for every line and rule of arbitrary comment text.
func FuzzSuppressions(f *testing.F) {
	f.Add([]byte("# sunset:ignore filters a\n*x # sunset:ignore all b\n{\n  # sunset:ignore filters c\n}\nx\n"), uint8(3))
	f.Add([]byte("<!-- sunset:ignore all r --> # sunset:ignore filters s\n\n-- sunset:ignore\n"), uint8(1))
	c := NewChecker(nil, asOf)
	rules := []vocab.RuleID{vocab.Filters, vocab.FirewallRules, "all", "x"}
	f.Fuzz(func(t *testing.T, data []byte, spanLen uint8) {
		li := newLineIndex(data)
		sups := findSuppressions(data, li)
		apply, by, _ := c.checkSuppressions(sups)
		var spans []span
		for l := 1; l <= li.lines(); l += 2 {
			spans = append(spans, span{start: l, end: l + int(spanLen%8)})
		}
		cov := newCoverage(apply, by, spans)
		for line := 1; line <= li.lines()+1; line++ {
			for _, r := range rules {
				want := ""
				for i, s := range apply {
					if names(s, r) && covers(s, line, spans) {
						want = by[i]
						break
					}
				}
				if got := cov.suppressedBy(r, line); got != want {
					t.Fatalf("line %d rule %s: suppressed by %q, want %q", line, r, got, want)
				}
			}
		}
	})
}

// covers and names are the direct rule FuzzSuppressions checks the sweep against.
func covers(s suppression, line int, spans []span) bool {
	if line == s.target {
		return true
	}
	if s.trailing {
		return false
	}
	for _, sp := range spans {
		if sp.start == s.target && line >= sp.start && line <= sp.end {
			return true
		}
	}
	return false
}

func names(s suppression, rule vocab.RuleID) bool {
	for _, r := range s.rules {
		if vocab.RuleID(r) == rule || r == "all" {
			return true
		}
	}
	return false
}

// FuzzConfig feeds arbitrary bytes to the .sunset.yaml reader: no panic, and a configuration
// it accepts reads back the same from its own YAML.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("paths: [infra]\nfail_on: warning\nmax_file_size: 5MiB\nrules:\n  disable: [dns-error-chain]\n  severity:\n    filters: notice\n"))
	f.Add([]byte("include: ['[!a]**']\nbaseline: b.json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data, "c")
		if err != nil {
			return
		}
		again, err := ParseConfig(cfg.YAML(), "c")
		if err != nil {
			t.Fatalf("own YAML does not read back: %v\n%s", err, cfg.YAML())
		}
		a, _ := cfg.MarshalJSON()
		b, _ := again.MarshalJSON()
		if string(a) != string(b) {
			t.Fatalf("round trip: %s != %s", a, b)
		}
	})
}

// FuzzBaseline feeds arbitrary bytes to the baseline reader: no panic, and a baseline it
// accepts writes and reads back with the same entries.
func FuzzBaseline(f *testing.F) {
	f.Add([]byte(`{"version":1,"findings":[{"fingerprint":"abc","rule_id":"filters","path":"a.sh","resource":"x"}]}`))
	f.Add([]byte(`{"version":1,"findings":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBaseline(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := b.Write(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ReadBaseline(&buf)
		if err != nil {
			t.Fatalf("own output does not read back: %v\n%s", err, buf.String())
		}
		var w1, w2 bytes.Buffer
		_ = b.Write(&w1)
		_ = again.Write(&w2)
		if w1.String() != w2.String() {
			t.Fatalf("round trip:\n%s\n%s", w1.String(), w2.String())
		}
	})
}

// FuzzIgnorePatterns feeds arbitrary .gitignore text and paths to the pattern matcher.
func FuzzIgnorePatterns(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\ndocs/**/*.md\n[!a]x\n\\#lit\n"), "docs/a/b.md", true)
	f.Fuzz(func(t *testing.T, data []byte, rel string, isDir bool) {
		var ign ignoreSet
		ign = ign.with(data, "")
		_ = ign.ignored(rel, isDir)
		_ = newGlobSet(strings.Split(string(data), "\n")).match(rel, isDir)
	})
}
