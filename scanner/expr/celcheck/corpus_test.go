package celcheck

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The real-world corpus is read at test time from $SUNSET_CORPUS and never
// copied into the repository.

type corpusEntry struct {
	Expr     string `json:"expr"`
	Category string `json:"category"`
	Why      string `json:"why"`
}

func corpusDirOrEmpty() string { return os.Getenv("SUNSET_CORPUS") }

func loadCorpus(tb testing.TB) map[string][]corpusEntry {
	dir := corpusDirOrEmpty()
	if dir == "" {
		tb.Skip("SUNSET_CORPUS is not set: skipping the real-world expression corpus")
	}
	f, err := os.Open(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			tb.Error(err)
		}
	}()
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

// filterExceptions: corpus lines labelled valid filters that are not valid
// custom-rule filters here, keyed by a substring that picks the line out,
// with the reason decided from the source and the diagnostic expected.
var filterExceptions = map[string]struct {
	reason, code string
	// phase, when set, is a phase in which the line must be valid.
	phase string
}{
	"tcp.dstport in {8000..8009": {reason: "tcp.dstport is a Magic Firewall (network layer) field, used in the docs to show integer ranges; " +
		"the field catalogue covers HTTP rules only", code: CodeUnknownField},
	"tcp.dstport in { 32768": {reason: "from Magic Firewall ruleset tests (cloudflare-go magic_firewall_rulesets_test.go): a network-layer field, " +
		"not an HTTP rules field", code: CodeUnknownField},
	"udp.dstport in { 32768": {reason: "from Magic Firewall ruleset tests: a network-layer field", code: CodeUnknownField},
	"ip.addr ne 172.16.22.155": {reason: "ip.addr is the open-source engine's test-scheme name copied into Terraform examples; " +
		"the field reference (and the catalogue) has only ip.src", code: CodeUnknownField},
	"159 223.166.150": {reason: "typos in the published IP list (managingwp/cloudflare-wordpress-rules): `159 223.166.150`, " +
		"`176.9.21.94104.236.42.153`, `162.243.108 216` are not IP addresses", code: CodeSyntax},
	`regex_replace("/foo/a/path"`: {reason: "the functions page's example of regex_replace, a transform-rule function: " +
		"rejected in a filter, valid in a transform phase", code: CodeFunctionNotAllow, phase: "http_request_transform"},
	`regex_replace("/b"`: {reason: "the functions page's example of regex_replace ($$ escapes a dollar): a transform-rule function",
		code: CodeFunctionNotAllow, phase: "http_request_transform"},
}

func TestCorpusFilters(t *testing.T) {
	corpus := loadCorpus(t)
	filters := corpus["filter"]
	if len(filters) == 0 {
		t.Fatal("no filter expressions in the corpus")
	}
	pass, excepted := 0, 0
	used := map[string]bool{}
	for _, e := range filters {
		c := checkSource(e.Expr, Options{})
		key := ""
		for k := range filterExceptions {
			if strings.Contains(e.Expr, k) {
				key = k
			}
		}
		if key == "" {
			if !c.Valid {
				t.Errorf("%q: %v", e.Expr, c.Diagnostics)
				continue
			}
			pass++
			continue
		}
		used[key] = true
		ex := filterExceptions[key]
		if c.Valid || !slices.ContainsFunc(c.Diagnostics, func(d Diagnostic) bool { return d.Code == ex.code }) {
			t.Errorf("exception %q (%s): want %s, got %v", key, ex.reason, ex.code, c.Diagnostics)
		}
		if ex.phase != "" {
			if c := checkSource(e.Expr, Options{Phase: ex.phase}); !c.Valid {
				t.Errorf("%q in phase %s: %v", e.Expr, ex.phase, c.Diagnostics)
			}
		}
		excepted++
	}
	for k := range filterExceptions {
		if !used[k] {
			t.Errorf("exception %q matches no corpus line", k)
		}
	}
	t.Logf("corpus filters: %d of %d parse and type-check; %d exceptions, each with its reason", pass, len(filters), excepted)
}

// Every invalid expression (real-world and the engine's negative tests) is
// rejected by the parser or the checker.
func TestCorpusInvalid(t *testing.T) {
	corpus := loadCorpus(t)
	total, byParse, byCheck := 0, 0, 0
	for _, cat := range []string{"invalid", "invalid-wirefilter"} {
		for _, e := range corpus[cat] {
			total++
			c := checkSource(e.Expr, Options{})
			switch {
			case c.Valid:
				t.Errorf("%s %q (%s): accepted", cat, e.Expr, e.Why)
			case slices.ContainsFunc(c.Diagnostics, func(d Diagnostic) bool { return d.Code == CodeSyntax }):
				byParse++
			default:
				byCheck++
			}
		}
	}
	if total != 73 {
		t.Errorf("%d invalid expressions, want the 73 of expressions_invalid.txt", total)
	}
	t.Logf("corpus invalid: %d of %d rejected (%d by the parser, %d by the checker)", byParse+byCheck, total, byParse, byCheck)
}
