package cli

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// TestFlagsAfterPositionalArguments: urfave/cli v2 stops parsing flags at the first
// positional argument, so `check . --format sarif` refused --format. parseCommandLine moves
// each command's flags (with their values) ahead of its positional arguments.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	app := newApp(&Streams{})
	for _, tc := range []struct {
		in, want string
	}{
		{"check . --format sarif", "check --format sarif ."},
		{"check --format sarif .", "check --format sarif ."},
		{"check a --format=json b --no-gitignore c", "check --format=json --no-gitignore a b c"},
		// The argument after a flag that takes a value is that value, whatever it looks like.
		{"check --include . dir", "check --include . dir"},
		{"check dir --config .sunset.yaml", "check --config .sunset.yaml dir"},
		{"check - --stdin-name - --stdin-type json", "check --stdin-name - --stdin-type json -"},
		{"check --stdin-name --odd -", "check --stdin-name --odd -"},
		// A bool flag takes none: the word after it stays a path.
		{"check --show-suppressed dir", "check --show-suppressed dir"},
		// After "--" nothing is a flag; "--" goes ahead of every path.
		{"check a -- --format b", "check -- a --format b"},
		{"translate http.host --plan pro", "translate --plan pro http.host"},
		{"translate -- -x --plan", "translate -- -x --plan"},
		// --help shows the command's help: the paths would be read as help topics.
		{"check a b --help", "check --help"},
		// Unknown flags move too, alone; the parser then names them.
		{"check a --nope b", "check --nope a b"},
		// No command, or not one: as given.
		{"--help", "--help"},
		{"chek . --format sarif", "chek . --format sarif"},
		{"help check --x", "help check --x"},
	} {
		line := parseCommandLine(app, append([]string{"sunset"}, strings.Fields(tc.in)...))
		got := strings.Join(line.args[1:], " ")
		if line.err != nil || got != tc.want {
			t.Errorf("%s: got %q (err %v), want %q", tc.in, got, line.err, tc.want)
		}
	}
	// A flag that wants a value and ends the line would take a path once moved ahead.
	if line := parseCommandLine(app, []string{"sunset", "check", ".", "--format"}); line.err == nil || line.err.Error() != "--format needs a value" {
		t.Errorf("check . --format: err %v, want --format needs a value", line.err)
	}
}

// TestFlagsAfterPathsApply runs check with its flags after the path: the SARIF format and
// the fail-on level are both used.
func TestFlagsAfterPathsApply(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("resource \"cloudflare_firewall_rule\" \"r\" {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSunset(t, nil, "check", dir, "--format", "sarif", "--fail-on", "none", "--as-of", "2025-07-01")
	if r.code != ExitOK || !strings.Contains(r.stdout, `"version": "2.1.0"`) || !strings.Contains(r.stdout, "firewall-rules") {
		t.Errorf("exit %d, stdout %.300q, stderr %q; want SARIF with the finding and exit 0", r.code, r.stdout, r.stderr)
	}
}

// TestUsageErrors: flag errors name long flags with two dashes, the command, the closest
// flag or command when one is close, and end with where that command's help is.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"check", "--formt", "sarif", "."}, []string{"sunset: check: unknown flag --formt\n", `Did you mean "--format"?`, "Run 'sunset check --help' for usage.\n"}, []string{" -formt"}},
		{[]string{"scan", "--zones", "a.example"}, []string{"scan: unknown flag --zones", `Did you mean "--zone"?`, "Run 'sunset scan --help'"}, nil},
		{[]string{"rules", "--frobnicate"}, []string{"rules: unknown flag --frobnicate\n", "Run 'sunset rules --help'"}, []string{"Did you mean"}},
		{[]string{"plan", "--format", "json"}, []string{"plan: unknown flag --format (a flag of ", "Run 'sunset plan --help'"}, []string{"Did you mean"}},
		{[]string{"scan", "--rps", "fast"}, []string{`sunset: --rps "fast": want a number`}, nil},
		{[]string{"check", "--workers", "1.5"}, []string{`--workers "1.5": want a whole number`}, nil},
		{[]string{"check", "--no-gitignore=maybe"}, []string{`--no-gitignore "maybe": want true or false`}, nil},
		{[]string{"scan", "--zone"}, []string{"sunset: --zone needs a value\n", "Run 'sunset scan --help'"}, nil},
		{[]string{"scna"}, []string{`unknown command "scna"`, `Did you mean "scan"?`, "Run 'sunset --help' for usage.\n"}, nil},
		{[]string{"xyz"}, []string{`unknown command "xyz"`}, []string{"Did you mean"}},
		{[]string{"--versio"}, []string{"sunset: unknown flag --versio\n", `Did you mean "--version"?`, "Run 'sunset --help'"}, []string{"sunset: sunset:"}},
		{[]string{"help", "rulez"}, []string{`no help for "rulez"`, `Did you mean "rules"?`}, nil},
	} {
		r := runSunset(t, nil, tc.args...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, r.code, ExitUsage)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, r.stderr)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(r.stderr, n) {
				t.Errorf("%v: stderr has %q:\n%s", tc.args, n, r.stderr)
			}
		}
	}
}

// TestEveryCommandTakesOnlyItsFlags lists each command's flags, so that a flag added to a
// command or dropped from it is a decision this test records: commands compose groups
// (source, report, judging) and their own; plan has no report flags (--format, --fail-on,
// --color were accepted and ignored); an old spelling follows its new one.
func TestEveryCommandTakesOnlyItsFlags(t *testing.T) {
	const (
		selection = "account zone zone-filter"
		api       = "api-url api-token-file api-email api-key-file workers rps retries"
		source    = selection + " " + api + " snapshot-out snapshot"
	)
	want := map[string]string{
		"plan":   source + " as-of catalog dates plan-dir out-dir no-verify",
		"scan":   source + " format fail-on color as-of catalog dates plan-dir plan no-verify resume since dry-run",
		"verify": "format plan-dir plan-in partial " + selection + " snapshot snapshot-out as-of catalog dates " + api,
		"apply": "yes journal resume rollback keep-old format plan-dir plan-in partial to-other-api " + selection + " " + api +
			" catalog dates snapshot snapshot-out as-of",
		"demo":      "report html format fail-on color workers snapshot-out as-of catalog dates plan-dir plan no-verify",
		"rules":     "format as-of color catalog dates",
		"translate": "rules existing zone-plan plan format",
		"report":    "in plan-dir plan format color",
		"version":   "format",
	}
	for _, cmd := range newApp(&Streams{}).Commands {
		w, ok := want[cmd.Name]
		if !ok {
			continue
		}
		var names []string
		for _, f := range cmd.Flags {
			names = append(names, f.Names()[0])
		}
		if got := strings.Join(names, " "); got != w {
			t.Errorf("%s flags:\n got %s\nwant %s", cmd.Name, got, w)
		}
		if cmd.Name == "plan" && slices.Contains(names, flagFormat) {
			t.Error("plan takes --format")
		}
	}
}

// TestHelpText: defaults read as people write them (--rps showed 3.9966666666666666),
// placeholders say what goes there (--color auto, --dates spec read as values), and rules'
// help promises the columns its table has, the others only with --format json.
func TestHelpText(t *testing.T) {
	scan := runSunset(t, nil, "scan", "--help").stdout
	for _, want := range []string{"(default: 3.99, 1,199 per 5 minutes)", "--color WHEN ", "--dates SOURCE ", "--rps RATE "} {
		if !strings.Contains(scan, want) {
			t.Errorf("scan --help lacks %q", want)
		}
	}
	for _, bad := range []string{"3.9966", "--color auto ", "--dates spec "} {
		if strings.Contains(scan, bad) {
			t.Errorf("scan --help has %q", bad)
		}
	}
	if check := runSunset(t, nil, "check", "--help").stdout; !strings.Contains(check, "(default: the number of CPUs, plus one)") || strings.Contains(check, "(default: 0)") {
		t.Errorf("check --help: --workers default not the number of CPUs plus one")
	}
	help := strings.Join(strings.Fields(runSunset(t, nil, "rules", "--help").stdout), " ")
	header, _, _ := strings.Cut(runSunset(t, nil, "rules").stdout, "\n")
	for _, col := range strings.Split(header, "\t") {
		if !strings.Contains(help, strings.ReplaceAll(col, "_", " ")) {
			t.Errorf("rules --help does not mention the column %q: %s", col, help)
		}
	}
	table, jsonPart, _ := strings.Cut(help, "--format json adds")
	if strings.Contains(table, "replacement") || !strings.Contains(jsonPart, "replacement") {
		t.Errorf("rules --help promises the replacement outside --format json: %s", help)
	}
}

// TestMessagesWithoutInternals: a rejected token, an unreachable API and an interrupted run
// read without package prefixes (cfapi:, collect:) or Go's "context canceled".
func TestMessagesWithoutInternals(t *testing.T) {
	srv := httptest.NewServer(newEmulator(t, emulator.Options{}))
	defer srv.Close()
	r := runSunset(t, map[string]string{"CLOUDFLARE_API_TOKEN": "wrong"}, "scan", "--api-url", srv.URL+emulator.BasePath, "--rps", "0")
	if r.code != ExitFatal || !strings.Contains(r.stderr, "sunset: the API refused API token from CLOUDFLARE_API_TOKEN: listing accounts: GET /accounts: HTTP 403") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, msg := range []string{r.stderr, runSunset(t, nil, "scan", "--rps", "0").stderr} {
		for _, internal := range []string{"cfapi:", "collect:"} {
			if strings.Contains(msg, internal) {
				t.Errorf("%q in %q", internal, msg)
			}
		}
	}
	var b strings.Builder
	printError(&b, fmt.Errorf("check interrupted: %w", fmt.Errorf("collect: zone z: reading: %w", context.Canceled)))
	if got := b.String(); got != "sunset: check interrupted: zone z: reading: interrupted\n" {
		t.Errorf("printed %q", got)
	}
}

// TestArgumentSuggestsItsFlag: a file given as an argument to a command that takes none
// names the flag it most likely belongs to.
func TestArgumentSuggestsItsFlag(t *testing.T) {
	for cmd, want := range map[string]string{"verify": "out/r.json: no such plan directory", "scan": "did you mean --snapshot out/r.json?"} {
		t.Run(cmd, func(t *testing.T) {
			r := runSunset(t, nil, cmd, "out/r.json")
			if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
				t.Fatalf("exit %d, want %d with %q\n%s", r.code, ExitUsage, want, r.stderr)
			}
		})
	}
}

// TestHelpGroupsFlags: the commands with many flags list them under their group's heading
// (urfave/cli categories), in the order the command composes its groups, --help last on its
// own; apply and verify say under which form of the command (a plan directory, a journal, a
// plan built as sunset plan builds it) each group serves, so --snapshot and --as-of are not
// listed as if they did something to a plan directory.
func TestHelpGroupsFlags(t *testing.T) {
	headings := map[string][]string{
		"scan":  {catSelection, catAPI, catSnapshot, catOutput, catJudging, catPlan, catRescan},
		"plan":  {catSelection, catAPI, catSnapshot, catJudging, catPlan},
		"check": {"Files", "Baseline and suppressions", "Standard input (the path -)", catOutput, catJudging},
		"demo":  {catOutput, "The demo's scan", catJudging, catPlan},
		"apply": {"Apply", "The plan directory (PLAN_DIR or --plan-dir)", "Accounts and zones: of the plan, the journal or the live scan",
			"API: where --yes sends, and where a plan built without PLAN_DIR is read", "Catalog: the one the plan was built with",
			"Without a plan directory or journal: the plan built as sunset plan builds it, live or from --snapshot"},
		"verify": {"Output", "The plan directory (PLAN_DIR or --plan-dir)", "Accounts and zones: of the plan, or of the live scan",
			"Without a plan directory: the plan built as sunset plan builds it, from --snapshot or the live account",
			"API: the live account read without a plan directory or --snapshot"},
	}
	for cmd, want := range headings {
		help := runSunset(t, nil, cmd, "--help").stdout
		options, _, _ := strings.Cut(help[strings.Index(help, "OPTIONS:"):], "\nEXAMPLES:")
		var got []string
		under := map[string]string{} // flag -> its heading
		heading := ""
		for _, line := range strings.Split(options, "\n")[1:] {
			switch {
			case strings.HasPrefix(line, "   --"):
				under[strings.Fields(line)[0]] = heading
			case strings.HasSuffix(line, ":"):
				heading = strings.TrimSuffix(strings.TrimSpace(line), ":")
				got = append(got, heading)
			case line == "":
				heading = ""
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s --help headings:\n got %q\nwant %q", cmd, got, want)
		}
		if h, ok := under["--help,"]; !ok || h != "" {
			t.Errorf("%s --help: --help under %q", cmd, h)
		}
		for flag, h := range under {
			if h == "" && flag != "--help," {
				t.Errorf("%s --help: %s under no heading", cmd, flag)
			}
		}
		if cmd == "apply" || cmd == "verify" {
			for _, flag := range []string{"--snapshot", "--as-of"} {
				if !strings.HasPrefix(under[flag], "Without a plan directory") {
					t.Errorf("%s --help: %s under %q", cmd, flag, under[flag])
				}
			}
		}
	}
}

// TestWorkersMeansOneThing: --workers is requests in flight wherever an account is read; the
// demo's scan is scan's, so its help says the same (it said "zones scanned at once").
func TestWorkersMeansOneThing(t *testing.T) {
	line := func(cmd string) string {
		for _, l := range strings.Split(runSunset(t, nil, cmd, "--help").stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "--workers N") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		return ""
	}
	scan := line("scan")
	if !strings.Contains(scan, "requests sent at once") {
		t.Fatalf("scan --help: %q", scan)
	}
	for _, cmd := range []string{"demo", "plan", "verify", "apply"} {
		if got := line(cmd); got != scan {
			t.Errorf("%s --help: %q\nscan --help: %q", cmd, got, scan)
		}
	}
}
