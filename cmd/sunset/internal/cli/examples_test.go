package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
)

// exampleLine is a command line of an EXAMPLES section: "$ ", environment settings, then
// "sunset" and the command (or --version).
var exampleLine = regexp.MustCompile(`^   \$ (?:[A-Z_]+=\S+ )*sunset (\S+)`)

// TestEveryCommandHasExamples: each command's --help ends with 2 to 5 examples of that
// command, each with a line saying what it does, as the GitHub CLI's help does.
func TestEveryCommandHasExamples(t *testing.T) {
	app := newApp(&Streams{})
	for _, cmd := range app.VisibleCommands() {
		r := runSunset(t, nil, cmd.Name, "--help")
		if cmd.Name == "help" {
			r = runSunset(t, nil, "help", "help")
		}
		if r.code != ExitOK {
			t.Fatalf("%s --help: exit %d\n%s", cmd.Name, r.code, r.stderr)
		}
		_, section, ok := strings.Cut(r.stdout, "\nEXAMPLES:\n")
		if !ok {
			t.Errorf("%s --help has no EXAMPLES section:\n%s", cmd.Name, r.stdout)
			continue
		}
		section, _, _ = strings.Cut(section, "\nLEARN MORE:\n")
		n := 0
		lines := strings.Split(strings.TrimRight(section, "\n"), "\n")
		for i, line := range lines {
			m := exampleLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			if ofCmd := m[1] == cmd.Name || cmd.Name == "version" && m[1] == "--version"; !ofCmd {
				t.Errorf("%s --help: an example of another command: %s", cmd.Name, line)
			}
			if i == 0 || !strings.HasPrefix(lines[i-1], "   # ") {
				t.Errorf("%s --help: example %q says not what it does", cmd.Name, line)
			}
		}
		if n < 2 || n > 5 {
			t.Errorf("%s --help: %d examples, want 2 to 5:\n%s", cmd.Name, n, section)
		}
	}
}

// TestHelpTopics: `sunset help` and `sunset help topics` list every topic; `sunset help TOPIC`
// prints it; `sunset help CMD` is the command's help (as --help), followed by the topic of
// the same name when there is one; a word that is neither is a usage error naming the
// closest.
func TestHelpTopics(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "topics"}, {"--help"}} {
		r := runSunset(t, nil, args...)
		for _, topic := range help.Topics() {
			if r.code != ExitOK || !strings.Contains(r.stdout, "   "+topic.Name+" ") || !strings.Contains(r.stdout, topic.Summary) {
				t.Errorf("%v: exit %d, topic %s not listed:\n%s", args, r.code, topic.Name, r.stdout)
			}
		}
	}
	cost := runSunset(t, nil, "help", "cost")
	want, _ := help.Terminal("cost")
	if cost.code != ExitOK || cost.stdout != want {
		t.Errorf("help cost: exit %d, stdout is not the topic:\n%.300s", cost.code, cost.stdout)
	}
	apply := runSunset(t, nil, "help", "apply")
	flags := runSunset(t, nil, "apply", "--help")
	topic, _ := help.Terminal("apply")
	if !strings.HasPrefix(apply.stdout, flags.stdout) || !strings.HasSuffix(apply.stdout, topic) {
		t.Errorf("help apply is not apply --help then the apply topic:\n%.600s", apply.stdout)
	}
	if !strings.Contains(flags.stdout, "LEARN MORE:\n   sunset help apply\n") || strings.Contains(flags.stdout, topic) {
		t.Errorf("apply --help does not point at the topic, or holds it whole:\n%s", flags.stdout)
	}
	rules := runSunset(t, nil, "help", "rules")
	if r := runSunset(t, nil, "rules", "--help"); rules.stdout != r.stdout || !strings.Contains(r.stdout, "sunset help catalog") {
		t.Errorf("help rules (a command without a topic of its name) differs from rules --help, or does not name the catalog topic:\n%s", rules.stdout)
	}
	for _, tc := range []struct{ word, want string }{
		{"cots", `Did you mean "cost"?`},
		{"rulez", `Did you mean "rules"?`},
	} {
		r := runSunset(t, nil, "help", tc.word)
		if r.code != ExitUsage || !strings.Contains(r.stderr, `no help for "`+tc.word+`"`) || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "sunset help topics") {
			t.Errorf("help %s: exit %d\n%s", tc.word, r.code, r.stderr)
		}
	}
	if r := runSunset(t, nil, "help", "cost", "apply"); r.code != ExitUsage {
		t.Errorf("help cost apply: exit %d, want %d", r.code, ExitUsage)
	}
}

// TestExamplesUseRealFlags: every flag an example writes is a flag of its command, under its
// current spelling (an old one would print a deprecation line to whoever copies it).
func TestExamplesUseRealFlags(t *testing.T) {
	app := newApp(&Streams{})
	for name, exs := range examples {
		cmd := app.Command(name)
		if cmd == nil {
			continue // help and version are no flag-taking commands
		}
		flags := map[string]bool{"help": true}
		for _, f := range cmd.Flags {
			if v, ok := f.(interface{ IsVisible() bool }); ok && !v.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				flags[n] = true
			}
		}
		for _, ex := range exs {
			words := strings.Fields(ex.line)
			if name == "version" && ex.line == "sunset --version" {
				continue // the root flag says the same
			}
			if len(words) < 2 || words[0] != "sunset" || words[1] != name {
				t.Errorf("%s example %q does not run sunset %s", name, ex.line, name)
				continue
			}
			for _, w := range words[2:] {
				if flag, ok := strings.CutPrefix(w, "--"); ok && flag != "" {
					flag, _, _ = strings.Cut(flag, "=")
					if !flags[flag] {
						t.Errorf("%s example %q: --%s is no current flag of %s", name, ex.line, flag, name)
					}
				}
			}
		}
	}
}
