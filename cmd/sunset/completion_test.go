package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completionCase is a command line typed up to the cursor (at its end) and what completion
// must offer there, and must not.
type completionCase struct {
	line          string
	want, notWant []string
}

// completionCases hold for every shell whose completion runs in the tests: commands, flags,
// formats (also written --format=F and FORMAT:PATH), levels, rule ids, help topics, files.
var completionCases = []completionCase{
	{"sunset ", []string{"demo", "scan", "check", "completion", "version", "help"}, []string{"__complete"}},
	{"sunset ch", []string{"check"}, []string{"scan", "demo"}},
	{"sunset check --f", []string{"--format", "--fail-on"}, []string{"--config", "report.json"}},
	{"sunset check --format ", []string{"sarif", "json", "table", "github", "gitlab", "junit"}, []string{"report.json"}},
	{"sunset check --format s", []string{"sarif"}, []string{"json"}},
	{"sunset check --fail-on ", []string{"error", "warning", "notice", "none"}, nil},
	{"sunset check --fail-on error --f", []string{"--format"}, []string{"--fail-on"}},
	{"sunset verify --format ", []string{"table", "json"}, []string{"sarif"}},
	{"sunset rules firewall", []string{"firewall-rules"}, []string{"filters"}},
	{"sunset rules ", []string{"firewall-rules", "rate-limiting-v1", "geoip-field-names"}, nil},
	{"sunset help ", []string{"check", "cost", "exit-codes", "topics"}, []string{"report.json"}},
	{"sunset help ex", []string{"exit-codes"}, []string{"check"}},
	{"sunset completion ", []string{"bash", "zsh", "fish", "powershell"}, nil},
	{"sunset check rep", []string{"report.json"}, nil},
	{"sunset scan --workers ", nil, []string{"report.json", "plan"}},
}

// TestBashCompletion loads `sunset completion bash` in a real bash, sets the variables bash
// sets when Tab is pressed on each line, calls the function the script registered for sunset
// and reads what it put in COMPREPLY.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed; .ci/run installs it")
	}
	dir := completionDir(t)
	// Bash's own word breaks (COMP_WORDBREAKS), which a shell without a terminal leaves unset.
	const driver = `COMP_WORDBREAKS=$' \t\n"\'@><=;|&(:'
source <(sunset completion bash) || exit 1
fn=$(complete -p sunset | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "no completion function registered for sunset" >&2; exit 1; }
COMP_LINE=$1 COMP_POINT=${#1} COMP_CWORD=$2
shift 2
COMP_WORDS=("$@")
"$fn" sunset "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
`
	bashCases := append(slices.Clone(completionCases),
		// bash replaces only what follows the last ":" or "=" of a word, so that is what it gets
		completionCase{"sunset check --format=sa", []string{"sarif"}, []string{"--format=sarif"}},
		completionCase{"sunset check --format sarif:", []string{"report.json", "plan/"}, []string{"sarif:report.json"}},
		completionCase{"sunset check --format sarif:rep", []string{"report.json"}, []string{"sarif"}},
		completionCase{"sunset fix --zone-plan example.com=p", []string{"pro"}, []string{"free"}},
		completionCase{"sunset apply ", []string{"plan"}, []string{"report.json"}},
	)
	for _, tc := range bashCases {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			words := bashWords(tc.line)
			args := append([]string{"-c", driver, "driver", tc.line, strconv.Itoa(len(words) - 1)}, words...)
			checkCompletions(t, completed(t, dir, bash, args...), tc)
		})
	}
}

// TestFishCompletion loads `sunset completion fish` in fish and asks fish itself what it
// completes each line with (complete -C).
func TestFishCompletion(t *testing.T) {
	t.Parallel()
	fish, script := shellAndScript(t, "fish", "sunset.fish")
	dir := completionDir(t)
	if out, err := exec.Command(fish, "--no-execute", script).CombinedOutput(); err != nil {
		t.Fatalf("fish --no-execute: %v\n%s", err, out)
	}
	for _, tc := range wholeWordCases() {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			checkCompletions(t, completed(t, dir, fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tc.line), tc)
		})
	}
}

// wholeWordCases are the cases of a shell that completes whole words (fish, zsh), not what
// follows the last ":" or "=" of one as bash does.
func wholeWordCases() []completionCase {
	return append(slices.Clone(completionCases),
		completionCase{"sunset check --format=sa", []string{"--format=sarif"}, nil},
		completionCase{"sunset check --format sarif:rep", []string{"sarif:report.json"}, nil},
		completionCase{"sunset fix --zone-plan example.com=p", []string{"example.com=pro"}, nil},
	)
}

// TestZshCompletion loads `sunset completion zsh` in zsh and calls its function _sunset with
// the words and CURRENT zsh sets when Tab is pressed on each line; _describe and _files,
// which need a terminal's completion system, are replaced by functions that print what
// they are given (the candidates, without descriptions) and the files they would offer.
func TestZshCompletion(t *testing.T) {
	t.Parallel()
	zsh, script := shellAndScript(t, "zsh", "_sunset")
	dir := completionDir(t)
	const driver = `compdef() { : }
_describe() {
  local c
  for c in "${(@P)4}"; do c=${c//\\:/$'\0'}; c=${c%%:*}; print -r -- "${c//$'\0'/:}"; done
}
_files() {
  if [[ $1 == -/ ]]; then print -rl -- ${words[CURRENT]}*(N/); else print -rl -- ${words[CURRENT]}*(N); fi
}
source $1 || exit 1
shift
words=("$@")
CURRENT=$#
_sunset
`
	cases := append(wholeWordCases(), completionCase{"sunset apply ", []string{"plan"}, []string{"report.json"}})
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			checkCompletions(t, completed(t, dir, zsh, append([]string{"-f", "-c", driver, "zsh", script}, strings.Split(tc.line, " ")...)...), tc)
		})
	}
}

// TestZshAndPowerShellScripts: the zsh script parses (zsh -n) and registers _sunset for
// sunset; the PowerShell one parses where pwsh is installed (Debian has no package for it).
func TestZshAndPowerShellScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sh := range []struct{ shell, file, prog string }{
		{"zsh", "_sunset", "zsh"},
		{"powershell", "sunset.ps1", "pwsh"},
	} {
		t.Run(sh.shell, func(t *testing.T) {
			prog, err := exec.LookPath(sh.prog)
			if err != nil {
				t.Skipf("%s is not installed (.ci/run installs zsh; pwsh has no Debian package)", sh.prog)
			}
			script := filepath.Join(dir, sh.file)
			writeCompletionScript(t, sh.shell, script)
			check := exec.Command(prog, "-n", script)
			if sh.shell == "powershell" {
				check = exec.Command(prog, "-NoProfile", "-Command",
					"$e = $null; [void][System.Management.Automation.Language.Parser]::ParseFile($args[0], [ref]$null, [ref]$e); if ($e) { $e; exit 1 }", script)
			}
			if out, err := check.CombinedOutput(); err != nil {
				t.Fatalf("%s does not parse: %v\n%s", sh.file, err, out)
			}
			if sh.shell == "zsh" {
				// Loaded with compinit, the script registers its function for sunset.
				out, err := exec.Command(prog, "-f", "-c", "autoload -U compinit; compinit -D; source $1; print -r -- ${_comps[sunset]}", "zsh", script).CombinedOutput()
				if err != nil || strings.TrimSpace(string(out)) != "_sunset" {
					t.Fatalf("zsh: sunset completes with %q (%v), want _sunset", out, err)
				}
			}
		})
	}
}

// shellAndScript is the path of shell, the test skipped without it, and a file named name
// holding `sunset completion SHELL`.
func shellAndScript(t *testing.T, shell, name string) (prog, script string) {
	t.Helper()
	prog, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed; .ci/run installs it", shell)
	}
	script = filepath.Join(t.TempDir(), name)
	writeCompletionScript(t, shell, script)
	return prog, script
}

// completed runs prog with args in dir and returns the lines it printed, each up to a tab
// (where a description starts).
func completed(t *testing.T, dir, prog string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(prog), err, stderrOf(err))
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		value, _, _ := strings.Cut(l, "\t")
		got = append(got, value)
	}
	return got
}

// completionDir is a directory with a file and a directory to complete names from.
func completionDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "plan"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeCompletionScript writes `sunset completion SHELL` to path.
func writeCompletionScript(t *testing.T, shell, path string) {
	t.Helper()
	out, err := exec.Command("sunset", "completion", shell).Output()
	if err != nil {
		t.Fatalf("sunset completion %s: %v\n%s", shell, err, stderrOf(err))
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// bashWords splits a command line into words as bash does for COMP_WORDS: at blanks, and a
// run of the word-break characters = and : is a word of its own.
func bashWords(line string) []string {
	var words []string
	for _, field := range strings.Split(line, " ") {
		start := 0
		for i := 1; i <= len(field); i++ {
			if i == len(field) || isBreak(field[i]) != isBreak(field[i-1]) {
				words = append(words, field[start:i])
				start = i
			}
		}
		if field == "" {
			words = append(words, "")
		}
	}
	return words
}

func isBreak(c byte) bool { return c == '=' || c == ':' }

// checkCompletions holds got, the completions offered, to tc.
func checkCompletions(t *testing.T, got []string, tc completionCase) {
	t.Helper()
	for _, w := range tc.want {
		if !slices.Contains(got, w) {
			t.Errorf("%q: %q not offered; got %q", tc.line, w, got)
		}
	}
	for _, w := range tc.notWant {
		if slices.Contains(got, w) {
			t.Errorf("%q: %q offered; got %q", tc.line, w, got)
		}
	}
}

// stderrOf is the standard error an *exec.ExitError kept, if err is one.
func stderrOf(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
