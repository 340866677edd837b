package cli

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCompleteWords: what `sunset __complete` answers, word by word, and the directive that
// tells the shell whether file names may follow.
func TestCompleteWords(t *testing.T) {
	for _, tc := range []struct {
		line      string // the words before the cursor, the last being completed
		want      []string
		notWant   []string
		directive int
	}{
		{"sunset ", []string{"check", "completion", "help"}, []string{completeCommandName}, compNoFiles},
		{"sunset --v", []string{"--version"}, nil, compNoFiles},
		{"sunset check --fo", []string{"--format"}, nil, compNoFiles},
		{"sunset check --format=j", []string{"--format=json", "--format=junit"}, []string{"json"}, compNoFiles},
		{"sunset apply --format ", []string{"text", "json"}, []string{"table", "sarif"}, compNoFiles},
		{"sunset fix --zone-plan zone=e", []string{"zone=enterprise"}, nil, compNoFiles},
		{"sunset fix --zone-plan ", nil, []string{"free"}, compNoFiles},
		{"sunset translate --zone-plan f", []string{"free"}, nil, compNoFiles},
		{"sunset check --stdin-type te", []string{"terraform", "terraform-json", "text"}, nil, compNoFiles},
		{"sunset scan --color ", []string{"auto", "always", "never"}, nil, compNoFiles},
		{"sunset scan --dates ", []string{"spec", "notice"}, nil, compNoFiles},
		{"sunset check --baseline ", nil, nil, 0},
		{"sunset scan --plan-dir ", nil, nil, compDirsOnly},
		{"sunset help --man ", nil, nil, compDirsOnly},
		{"sunset verify ", nil, nil, compDirsOnly},
		{"sunset check -- --f", nil, []string{"--format"}, 0},
		{"sunset check --show-suppressed --s", []string{"--stdin-type"}, []string{"--show-suppressed"}, compNoFiles},
		{"sunset check --include a --i", []string{"--include"}, nil, compNoFiles},
		{"sunset version ", nil, nil, compNoFiles},
		{"sunset help check ", nil, nil, compNoFiles},
		{"sunset nosuch ", nil, nil, compNoFiles},
	} {
		t.Run(tc.line, func(t *testing.T) {
			words := strings.Split(strings.TrimPrefix(tc.line, "sunset "), " ")
			r := runSunset(t, nil, append([]string{completeCommandName}, words...)...)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			var got []string
			for _, l := range lines[:len(lines)-1] {
				value, _, _ := strings.Cut(l, "\t")
				got = append(got, value)
			}
			if r.code != ExitOK || lines[len(lines)-1] != ":"+strconv.Itoa(tc.directive) {
				t.Errorf("exit %d, directive %q, want :%d\n%s", r.code, lines[len(lines)-1], tc.directive, r.stdout)
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q not offered: %q", w, got)
				}
			}
			for _, w := range tc.notWant {
				if slices.Contains(got, w) {
					t.Errorf("%q offered: %q", w, got)
				}
			}
		})
	}
}

// TestCompletedValuesAreTheFlagsOwn: every value completion offers for a flag is one the
// help of that flag names (of this command, or of another with the same flag), so the two
// cannot drift apart unnoticed.
func TestCompletedValuesAreTheFlagsOwn(t *testing.T) {
	app := newApp(&Streams{})
	usages := map[string]string{}
	for _, cmd := range app.VisibleCommands() {
		for _, f := range cmd.VisibleFlags() {
			usages[f.Names()[0]] += placeholderOf.ReplaceAllString(flagUsage(f), "") + "\n"
		}
	}
	n := 0
	for _, cmd := range app.VisibleCommands() {
		for _, f := range cmd.VisibleFlags() {
			name := f.Names()[0]
			for _, c := range flagChoices(cmd.Name, name) {
				n++
				if !strings.Contains(usages[name], c.value) {
					t.Errorf("%s --%s: completes %q, which no help of --%s names:\n%s", cmd.Name, name, c.value, name, usages[name])
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("%d values completed in all", n)
	}
}

// TestRulesByID: `sunset rules ID...` lists those entries; an unknown id is a usage error
// naming the closest.
func TestRulesByID(t *testing.T) {
	r := runSunset(t, nil, "rules", "firewall-rules", "filters")
	if r.code != ExitOK || strings.Count(r.stdout, "\n") != 3 || !strings.Contains(r.stdout, "\nfilters\t") || !strings.Contains(r.stdout, "\nfirewall-rules\t") {
		t.Errorf("rules firewall-rules filters: exit %d\n%s", r.code, r.stdout)
	}
	r = runSunset(t, nil, "rules", "firewall-rule")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `no catalog entry "firewall-rule"`) || !strings.Contains(r.stderr, `Did you mean "firewall-rules"?`) {
		t.Errorf("rules firewall-rule: exit %d\n%s", r.code, r.stderr)
	}
}
