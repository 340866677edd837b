package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// translateRun runs sunset in-process with stdin and returns the exit code and both outputs.
func translateRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{
		In: strings.NewReader(stdin), Out: &out, Err: &errOut,
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC) },
	}
	code = Run(context.Background(), append([]string{"sunset"}, args...), s)
	return code, out.String(), errOut.String()
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTranslateExpressionCommand(t *testing.T) {
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string   // exact
		stderr []string // substrings
	}{
		{name: "valid", args: []string{"translate", `http.host eq "a.example"`}, code: 0, stdout: "http.host eq \"a.example\"\n"},
		{name: "renamed", args: []string{"translate", `ip.geoip.country == "GB"`}, code: 0, stdout: "ip.src.country eq \"GB\"\n",
			stderr: []string{"changed: renamed ip.geoip.country to ip.src.country", "[renamed-field]"}},
		{name: "stdin", stdin: "ssl\n", args: []string{"translate", "-"}, code: 0, stdout: "ssl\n"},
		{name: "parse error with caret", args: []string{"translate", `ip.src in {1.2.3.4, 5.6.7.8}`}, code: 1, stdout: "",
			stderr: []string{"1:19: error: expected a set element", "ip.src in {1.2.3.4, 5.6.7.8}\n                  ^"}},
		{name: "plan", args: []string{"translate", "--zone-plan", "pro", `http.request.uri.path ~ "^/a"`}, code: 1,
			stdout: "http.request.uri.path matches \"^/a\"\n", stderr: []string{"[plan-regex]", "                      ^"}},
		{name: "threat score", args: []string{"translate", `cf.threat_score lt 10`}, code: 1, stdout: "cf.threat_score lt 10\n",
			stderr: []string{"matches every request"}},
		{name: "no argument", args: []string{"translate"}, code: 2, stderr: []string{"give an expression"}},
		{name: "two arguments", args: []string{"translate", "ssl", "ssl"}, code: 2, stderr: []string{"one expression"}},
		// Flags after the expression apply as before it (the plan check fires on the regex).
		{name: "flag after", args: []string{"translate", `http.request.uri.path ~ "^/a"`, "--zone-plan", "pro"}, code: 1,
			stdout: "http.request.uri.path matches \"^/a\"\n", stderr: []string{"[plan-regex]"}},
		{name: "flag after, bad value", args: []string{"translate", "ssl", "--zone-plan", "gold"}, code: 2, stderr: []string{`--zone-plan "gold"`}},
		{name: "after --", args: []string{"translate", "--", "ssl", "--plan"}, code: 2, stderr: []string{"one expression"}},
		{name: "old spelling, bad plan", args: []string{"translate", "--plan", "gold", "ssl"}, code: 2,
			stderr: []string{"sunset: --plan is deprecated and goes in the next release: use --zone-plan\n", `--zone-plan "gold"`}},
		{name: "bad format", args: []string{"translate", "--format", "xml", "ssl"}, code: 2, stderr: []string{`--format: unknown format "xml"`}},
		{name: "existing alone", args: []string{"translate", "--existing", "x.json", "ssl"}, code: 2, stderr: []string{"--existing goes with --rules"}},
		{name: "both", args: []string{"translate", "--rules", "x.json", "ssl"}, code: 2, stderr: []string{"not both"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := translateRun(t, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if c.code != 2 && out != c.stdout {
				t.Errorf("stdout %q, want %q", out, c.stdout)
			}
			for _, s := range c.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestTranslateExpressionJSON(t *testing.T) {
	code, out, _ := translateRun(t, "", "translate", "--format", "json", "(http.host eq \"a\"\n  and http.host eq 1)")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	var got struct {
		Input       string `json:"input"`
		Valid       *bool  `json:"valid"`
		Expression  string `json:"expression"`
		Changes     []string
		Diagnostics []struct {
			Severity, Message string
			Line, Column      int
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Valid == nil || *got.Valid || got.Expression != `http.host eq "a" and http.host eq 1` || len(got.Changes) != 1 {
		t.Errorf("%+v", got)
	}
	if len(got.Diagnostics) != 1 || got.Diagnostics[0].Line != 2 || got.Diagnostics[0].Column != 20 || got.Diagnostics[0].Severity != "error" {
		t.Errorf("diagnostics %+v", got.Diagnostics)
	}
	if !strings.HasPrefix(out, "{\n  \"input\": ") || !strings.Contains(out, "\"valid\": false,\n  \"expression\"") {
		t.Errorf("member order:\n%s", out)
	}
}

const translateRulesFixture = `{"success":true,"errors":[],"messages":[],"result":[
 {"id":"a1","action":"allow","priority":10,"paused":false,"description":"office","filter":{"id":"f1","expression":"ip.src in {198.51.100.0/24}"}},
 {"id":"b1","action":"bypass","priority":10,"paused":false,"products":["waf"],"filter":{"id":"f2","expression":"ip.src in {198.51.100.0/24}"}},
 {"id":"c1","action":"block","priority":20,"paused":false,"description":"geo","filter":{"id":"f3","expression":"ip.geoip.country eq \"KP\""}},
 {"id":"d1","action":"challenge","priority":null,"paused":true,"filter":{"id":"f4","expression":"(ssl"}}
]}`

func TestTranslateRulesCommand(t *testing.T) {
	rules := writeTemp(t, "rules.json", translateRulesFixture)
	code, out, errOut := translateRun(t, "", "translate", "--zone-plan", "free", "--rules", rules)
	if code != 1 {
		t.Errorf("exit %d (an unparsable filter is an error)", code)
	}
	var body struct {
		Rules []inventory.RulesetRule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("stdout is not the PUT body: %v\n%s", err, out)
	}
	if len(body.Rules) != 2 || body.Rules[0].Action != "skip" || body.Rules[1].Expression != `ip.src.country eq "KP"` {
		t.Errorf("rules %+v", body.Rules)
	}
	for _, want := range []string{
		"index\tfirewall_rule\taction\tcustom_rule\tstatus\n",
		"0\tb1+a1\tbypass+allow\tskip\tadded\n",
		"1\tc1\tblock\tblock\tadded\n",
		"-\td1\tchallenge\t-\tnot translated\n",
		"d1: 1:5: error: expected \")\"",
		"(ssl\n    ^",
		"4 firewall rules -> 2 custom rules added (0 existing kept); 1 errors, 0 warnings",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	// The existing entry point goes first; a rule already migrated is not added again.
	existing := writeTemp(t, "entry.json", `{"success":true,"errors":[],"messages":[],"result":{"id":"rs","phase":"http_request_firewall_custom",
	  "rules":[{"id":"e1","action":"block","expression":"ip.src.country eq \"KP\"","ref":"c1","enabled":true}]}}`)
	code, out, _ = translateRun(t, "", "translate", "--format", "json", "--existing", existing, "--rules", rules)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	var res customrules.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Ruleset) != 2 || res.Ruleset[0].ID != "e1" || len(res.Rules) != 3 || res.Rules[1].Index != 0 {
		t.Errorf("ruleset %+v\ntranslations %+v", res.Ruleset, res.Rules)
	}

	// Stdin, a bare list, everything valid: exit 0.
	code, out, errOut = translateRun(t, `[{"id":"x","action":"block","filter":{"expression":"ssl"}}]`, "translate", "--rules", "-")
	if code != 0 || !strings.Contains(out, `"expression": "ssl"`) {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestTranslateRulesBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		content, want string
	}{
		"not json":    {"firewall rules", "not a JSON object or array"},
		"failed call": {`{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"result":null}`, "the API call failed"},
		"not a rule":  {`{"hello":"world"}`, "not a firewall rule"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := translateRun(t, "", "translate", "--rules", writeTemp(t, "r.json", c.content))
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %s", code, errOut)
			}
		})
	}
	code, _, errOut := translateRun(t, "", "translate", "--rules", filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing file: exit %d, %s", code, errOut)
	}
	code, _, errOut = translateRun(t, "", "translate", "--rules", writeTemp(t, "r.json", "[]"), "--existing",
		writeTemp(t, "e.json", `{"id":"r","phase":"http_ratelimit","rules":[]}`))
	if code != 2 || !strings.Contains(errOut, "phase http_ratelimit") {
		t.Errorf("wrong phase: exit %d, %s", code, errOut)
	}
}

// On a terminal the translations are a bordered table.
func TestTranslateRulesTableOnTTY(t *testing.T) {
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, ErrTTY: true, Getenv: func(string) string { return "" },
		Now: func() time.Time { return time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC) }}
	code := Run(context.Background(), []string{"sunset", "translate", "--rules", writeTemp(t, "r.json", translateRulesFixture)}, s)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"FIREWALL RULE", "CUSTOM RULE", "│ b1+a1", "not translated", "┌"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "\x1b[") {
		t.Error("escape codes in the table")
	}
}

// TestTranslateFormatToFile: translate's --format takes FORMAT[:PATH] as every command's does;
// what goes to stdout goes to PATH, diagnostics stay on stderr.
func TestTranslateFormatToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	r := runSunset(t, nil, "translate", "--format", "json:"+path, `ip.geoip.country eq "KP"`)
	data, err := os.ReadFile(path)
	if r.code != ExitOK || err != nil || r.stdout != "" || !strings.Contains(string(data), `"expression": "ip.src.country eq \"KP\""`) {
		t.Errorf("exit %d, stdout %q, file %s (%v)\n%s", r.code, r.stdout, data, err, r.stderr)
	}
}
