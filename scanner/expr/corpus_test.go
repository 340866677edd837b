package expr

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real-world corpus is read at test time from $SUNSET_CORPUS and never
// copied into the repository.

type corpusEntry struct {
	Expr     string `json:"expr"`
	Category string `json:"category"`
	Why      string `json:"why"`
	Notes    string `json:"notes"`
}

func corpusDir(tb testing.TB) string {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		tb.Skip("SUNSET_CORPUS is not set: skipping the real-world expression corpus")
	}
	return dir
}

func loadCorpus(tb testing.TB, dir string) map[string][]corpusEntry {
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

// filterExceptions: corpus lines labelled valid that do not parse, keyed by
// a substring that picks the line out, with the reason decided from the
// source and the error expected.
var filterExceptions = map[string]struct{ reason, wantErr string }{
	"159 223.166.150": {
		reason: "typos in the published IP list (managingwp/cloudflare-wordpress-rules): " +
			"`159 223.166.150`, `176.9.21.94104.236.42.153` and `162.243.108 216` lost a dot or a space; " +
			"none is an IP address, so the service rejects this rule as written",
		wantErr: `invalid IP address "223.166.150"`,
	},
}

// invalidAccepted: corpus lines labelled invalid that are valid syntax.
// Each is rejected by the engine for a reason this package cannot see: it
// needs field types, the engine's test scheme, or a limit the engine's unit
// test set artificially low. Type errors are celcheck's job.
var invalidAccepted = map[string]string{
	"ip.src==34":                           "type error: an integer compared with an IP field (celcheck)",
	"xyz":                                  "unknown field of the engine's test scheme",
	"xyz\n":                                "unknown field of the engine's test scheme",
	"\n\n    xyz":                          "unknown field of the engine's test scheme",
	"x":                                    "unknown field in the engine's component-lexer test",
	"\narr and arr\n":                      "type error: arrays used as booleans",
	"concat(0, 0) == 0":                    "type error: integer arguments to concat",
	"bool in {0}":                          "type error: `in` on a boolean field",
	"bool in {127.0.0.1}":                  "type error: `in` on a boolean field",
	"bool in {\"test\"}":                   "type error: `in` on a boolean field",
	"num in {127.0.0.1}":                   "type error: addresses in an integer set",
	"num in {\"test\"}":                    "type error: strings in an integer set",
	"ip in {666}":                          "type error: an integer in an IP set",
	"ip in {\"test\"}":                     "type error: a string in an IP set",
	"str in {0}":                           "type error: an integer in a string set",
	"str in {127.0.0.1}":                   "type error: an address in a string set",
	"echo ( echo ( echo ( http.host ) ) )": "the engine's test sets the nesting limit to 2; ours is MaxDepth",
	"any ( ( http.request.headers.is_empty or http.request.headers.is_empty ) )": "the engine's test sets a low nesting limit",
	"((t))":          "the engine's test sets a low nesting limit",
	"!!t":            "the engine's test sets a low nesting limit",
	"t and (t or t)": "the engine's test sets a low nesting limit",
	"t and af":       "type error: boolean and array of booleans",
	"at and f":       "type error: boolean and array of booleans",
	"t or af":        "type error: boolean and array of booleans",
	"at or f":        "type error: boolean and array of booleans",
	"t xor af":       "type error: boolean and array of booleans",
	"at xor f":       "type error: boolean and array of booleans",
	"any(t)":         "type error: any() of a boolean, not an array",
	"http.host < 12": "type error: a bytes field ordered against an integer",
}

// schemeExceptions: lines of the engine's own test scheme that are not
// whole filters. "value" parses the given text with ParseValue, "regex"
// parses it as the right-hand side of matches, "unpack" asserts the
// top-level [*] error and that the same text parses inside any(...).
var schemeExceptions = map[string]struct{ kind, text, reason string }{
	"x;":                              {"value", "x", "component lexer test: `;` is the rest the test expects"},
	"x.y.z0-":                         {"value", "x.y.z0", "identifier lexer test: `-` is the rest the test expects"},
	`"a quoted string";`:              {"value", `"a quoted string"`, "string lexer test"},
	`r##"a raw\\xaa r#""# string"##;`: {"value", `r##"a raw\\xaa r#""# string"##`, "raw string lexer test"},
	`"a quoted \xaa\x22 string";`:     {"value", `"a quoted \xaa\x22 string"`, "string lexer test"},
	`r"*foo\bar*"`:                    {"value", `r"*foo\bar*"`, "wildcard lexer test"},
	`"*_*_*"`:                         {"value", `"*_*_*"`, "wildcard lexer test"},
	`"*_*_*_*"`:                       {"value", `"*_*_*_*"`, "wildcard lexer test"},
	`"*foo*bar*"`:                     {"value", `"*foo*bar*"`, "wildcard lexer test"},
	`"*foo**bar*"`:                    {"value", `"*foo**bar*"`, "wildcard lexer test"},
	`"[a-z"\]]+\d{1,10}\"";`:          {"regex", `"[a-z"\]]+\d{1,10}\""`, "regex literal lexer test"},
	`r#"[a-z"\]]+\d{1,10}""#;`:        {"regex", `r#"[a-z"\]]+\d{1,10}""#`, "raw regex lexer test"},
	`r#"(?u)\*\a\f\t\n\r\v\x7F\x{10FFFF}\u007F\u{7F}\U0000007F\U{7F}"#`: {"regex", `r#"(?u)\*\a\f\t\n\r\v\x7F\x{10FFFF}\u007F\u{7F}\U0000007F\U{7F}"#`, "raw regex lexer test"},
	"echo ( http.host, 1, 2 );":                                         {"value", "echo ( http.host, 1, 2 )", "function call lexer test"},
	"echo ( http.host );":                                               {"value", "echo ( http.host )", "function call lexer test"},
	"echo (http.host,1,2);":                                             {"value", "echo (http.host,1,2)", "function call lexer test"},
	"echo ( echo ( http.host ) );":                                      {"value", "echo ( echo ( http.host ) )", "function call lexer test"},
	"echo ( http.request.headers.names[*] );":                           {"value", "echo ( http.request.headers.names[*] )", "function call lexer test"},
	"echo ( http.headers[*] );":                                         {"value", "echo ( http.headers[*] )", "function call lexer test"},
	`http.request.headers.names[*] == "test"`:                           {"unpack", "", topUnpack},
	"at[*]":                      {"unpack", "", topUnpack},
	`http.cookies[*] == "three"`: {"unpack", "", topUnpack},
	`http.headers[*] == "three"`: {"unpack", "", topUnpack},
	`concat(http.cookies[*], "-cf")[*] == "three-cf"`: {"unpack", "", topUnpack},
	"len(http.cookies[*])[*] > 3":                     {"unpack", "", topUnpack},
	`http.parts[*][*] == "[5][5]"`:                    {"unpack", "", topUnpack},
	`http.parts[5][*] == "[5][5]"`:                    {"unpack", "", topUnpack},
	`http.parts[*][5] == "[5][5]"`:                    {"unpack", "", topUnpack},
	"array(test[0])[*]":                               {"unpack", "", topUnpack},
	"array2(test[0])[*][*]":                           {"unpack", "", topUnpack},
	"array2(test[0])[*][0]":                           {"unpack", "", topUnpack},
	"array2(test[0])[0][*]":                           {"unpack", "", topUnpack},
}

const topUnpack = "the engine's expression lexer accepts a top-level [*] (an array of booleans), but a filter must be one boolean and the service's docs mark this form invalid"

func TestCorpusFilters(t *testing.T) {
	c := loadCorpus(t, corpusDir(t))
	entries := c["filter"]
	parsed, excepted := 0, 0
	for _, e := range entries {
		ast, err := Parse(e.Expr)
		if err == nil {
			parsed++
			checkRoundTrip(t, e.Expr, ast, false)
			if IsTemplated(e.Expr) {
				t.Errorf("IsTemplated(%q) = true for a plain filter", e.Expr)
			}
			continue
		}
		found := false
		for key, ex := range filterExceptions {
			if strings.Contains(e.Expr, key) {
				found = true
				excepted++
				if !strings.Contains(errorList(t, err).Render(e.Expr), ex.wantErr) {
					t.Errorf("exception %q: error %v, want %q", key, err, ex.wantErr)
				}
			}
		}
		if !found {
			t.Errorf("valid corpus expression rejected:\n%s", errorList(t, err).Render(e.Expr))
		}
	}
	if excepted != len(filterExceptions) {
		t.Errorf("%d exceptions used, %d listed", excepted, len(filterExceptions))
	}
	t.Logf("filters: %d of %d parse and round-trip; %d listed exceptions", parsed, len(entries), excepted)
}

func TestCorpusInvalid(t *testing.T) {
	c := loadCorpus(t, corpusDir(t))
	entries := append(c["invalid"], c["invalid-wirefilter"]...)
	rejected, accepted := 0, 0
	seen := map[string]bool{}
	for _, e := range entries {
		_, err := Parse(e.Expr)
		reason, listed := invalidAccepted[e.Expr]
		switch {
		case err != nil && listed:
			t.Errorf("%q is rejected now (%v): drop it from invalidAccepted (%s)", e.Expr, err, reason)
		case err != nil:
			rejected++
			var list ErrorList
			if !errors.As(err, &list) || list[0].Line < 1 || list[0].Col < 1 {
				t.Errorf("%q: bad error %v", e.Expr, err)
			}
		case listed:
			accepted++
			seen[e.Expr] = true
		default:
			t.Errorf("invalid corpus expression accepted (%s): %q", e.Why, e.Expr)
		}
	}
	for k := range invalidAccepted {
		if !seen[k] {
			t.Errorf("invalidAccepted lists %q, which is not in the corpus", k)
		}
	}
	t.Logf("invalid: %d of %d rejected; %d accepted as valid syntax with a listed semantic reason", rejected, len(entries), accepted)
}

func TestCorpusWirefilterScheme(t *testing.T) {
	c := loadCorpus(t, corpusDir(t))
	entries := c["wirefilter-scheme"]
	parsed, components, unpack := 0, 0, 0
	for _, e := range entries {
		ast, err := Parse(e.Expr)
		ex, listed := schemeExceptions[e.Expr]
		if err == nil {
			if listed {
				t.Errorf("%q parses now: drop it from schemeExceptions", e.Expr)
			}
			parsed++
			checkRoundTrip(t, e.Expr, ast, false)
			continue
		}
		if !listed {
			t.Errorf("engine test-scheme expression rejected:\n%s", errorList(t, err).Render(e.Expr))
			continue
		}
		switch ex.kind {
		case "value":
			v, err := ParseValue(ex.text)
			if err != nil {
				t.Errorf("component %q: ParseValue(%q): %v", e.Expr, ex.text, err)
				continue
			}
			checkRoundTrip(t, ex.text, v, true)
			components++
		case "regex":
			v, err := Parse("f matches " + ex.text)
			if err != nil {
				t.Errorf("component %q as a regex: %v", e.Expr, err)
				continue
			}
			checkRoundTrip(t, ex.text, v, false)
			components++
		case "unpack":
			if !strings.Contains(err.Error(), "[*] is only allowed inside a function argument") {
				t.Errorf("%q: %v, want the [*] error", e.Expr, err)
			}
			if _, err := Parse("any(" + e.Expr + ")"); err != nil {
				t.Errorf("%q inside any(): %v", e.Expr, err)
			}
			unpack++
		}
	}
	t.Logf("engine test scheme: %d of %d parse as filters; %d component-lexer lines parse as values or regexes; %d top-level [*] lines rejected by design",
		parsed, len(entries), components, unpack)
}

func TestCorpusTemplated(t *testing.T) {
	c := loadCorpus(t, corpusDir(t))
	n := 0
	for _, e := range c["templated"] {
		if IsTemplated(e.Expr) {
			n++
		} else {
			t.Errorf("IsTemplated(%q) = false", e.Expr)
		}
	}
	for _, cat := range []string{"value", "wirefilter-scheme"} {
		for _, e := range c[cat] {
			if IsTemplated(e.Expr) {
				t.Errorf("IsTemplated(%q) = true (%s)", e.Expr, cat)
			}
		}
	}
	t.Logf("templated: %d of %d recognised", n, len(c["templated"]))
}

func TestCorpusValues(t *testing.T) {
	c := loadCorpus(t, corpusDir(t))
	n := 0
	for _, e := range c["value"] {
		ast, err := ParseValue(e.Expr)
		if err != nil {
			t.Errorf("ParseValue(%q): %v", e.Expr, err)
			continue
		}
		checkRoundTrip(t, e.Expr, ast, true)
		n++
	}
	t.Logf("values: %d of %d parse with ParseValue and round-trip", n, len(c["value"]))
}

// TestCorpusTextFiles checks that the .txt files hold the same expressions
// as the JSONL (with \n written as two characters), so the JSONL-based
// tests above cover every line of them.
func TestCorpusTextFiles(t *testing.T) {
	dir := corpusDir(t)
	c := loadCorpus(t, dir)
	files := map[string][]string{
		"expressions.txt":                       {"filter"},
		"expressions_invalid.txt":               {"invalid", "invalid-wirefilter"},
		"expressions_templated.txt":             {"templated"},
		"expressions_value.txt":                 {"value"},
		"expressions_wirefilter_testscheme.txt": {"wirefilter-scheme"},
	}
	esc := strings.NewReplacer("\n", `\n`, "\r", `\r`)
	for name, cats := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		want := map[string]bool{}
		total := 0
		for _, cat := range cats {
			for _, e := range c[cat] {
				want[esc.Replace(e.Expr)] = true
				total++
			}
		}
		if len(lines) != total {
			t.Errorf("%s: %d lines, JSONL has %d", name, len(lines), total)
		}
		for _, l := range lines {
			if !want[l] && !strings.Contains(l, `\x7F\x{10FFFF}`) { // the one documented \n ambiguity
				t.Errorf("%s: line not in the JSONL: %.80q", name, l)
			}
		}
	}
}
