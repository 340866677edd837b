package cli

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/repo"
)

// Shell completion works as the GitHub CLI's (cobra's) does: the script a shell loads
// (`sunset completion SHELL`) hands the words of the command line, up to the one being
// completed, to the hidden `sunset __complete WORDS... WORD` and offers what it prints. The
// candidates come from the command tree itself (commands, flags, help topics) and from the
// data behind the flags (formats, levels, rule ids), so a new command, flag or rule completes
// without touching any script. urfave/cli's own --generate-bash-completion completes command
// and flag names only, for bash and zsh.

// completeCommandName is the hidden command the completion scripts call.
const completeCommandName = "__complete"

// Directive bits, printed after the candidates as ":N" (the values of cobra's
// ShellCompDirective, so the scripts read alike): what the shell does besides offering them.
const (
	compNoSpace  = 2  // no space after the candidate: the word goes on (a directory, FORMAT:)
	compNoFiles  = 4  // no file names when there is no candidate
	compDirsOnly = 16 // directory names only
)

// candidate is one completion and what it is (shown by zsh, fish and PowerShell).
type candidate struct{ value, desc string }

// completion is the answer to one request: candidates and a directive.
type completion struct {
	cands     []candidate
	directive int
}

// completeCommand is `sunset __complete [WORD...] CURRENT`.
func completeCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:            completeCommandName,
		Usage:           "print the completions of a command line (used by the scripts of 'sunset completion')",
		Hidden:          true,
		HideHelp:        true,
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				words = []string{""}
			}
			comp := completeWords(c.App, words)
			for _, cd := range comp.cands {
				line := cd.value
				if cd.desc != "" {
					line += "\t" + oneLine(cd.desc)
				}
				fmt.Fprintln(s.Out, line)
			}
			_, err := fmt.Fprintf(s.Out, ":%d\n", comp.directive)
			return err
		},
	}
}

// completeWords completes the last of words, the words after "sunset" on the command line.
func completeWords(app *ucli.App, words []string) completion {
	cur, before := words[len(words)-1], words[:len(words)-1]
	i := 0
	for i < len(before) && strings.HasPrefix(before[i], "-") {
		i++ // the root flags take no value
	}
	if i == len(before) {
		if strings.HasPrefix(cur, "-") {
			return flagCompletion(app.VisibleFlags(), cur, nil)
		}
		return completion{cands: commandCandidates(app, cur), directive: compNoFiles}
	}
	cmd := app.Command(before[i])
	if cmd == nil || cmd.Hidden {
		return completion{directive: compNoFiles}
	}
	return completeInCommand(app, cmd, before[i+1:], cur)
}

// completeInCommand completes cur, a word of cmd's arguments after those in before: the value
// of the flag before it, a flag, or a positional argument. Flags go anywhere, as sunset reads
// them (parseCommandLine), and nothing after "--" is a flag.
func completeInCommand(app *ucli.App, cmd *ucli.Command, before []string, cur string) completion {
	given := map[string]bool{}
	positional, dashes := 0, false
	for j := 0; j < len(before); j++ {
		w := before[j]
		if dashes || w == "-" || !strings.HasPrefix(w, "-") {
			positional++
			continue
		}
		if w == "--" {
			dashes = true
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
		given[name] = true
		if f := flagNamed(cmd, name); f != nil && takesValue(f) && !inline {
			if j+1 == len(before) {
				return flagValueCompletion(cmd, f, "", cur)
			}
			j++ // its value
		}
	}
	if !dashes && strings.HasPrefix(cur, "-") {
		if name, value, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := flagNamed(cmd, name); f != nil && takesValue(f) {
				return flagValueCompletion(cmd, f, cur[:len(cur)-len(value)], value)
			}
			return completion{directive: compNoFiles}
		}
		return flagCompletion(cmd.VisibleFlags(), cur, given)
	}
	return argCompletion(app, cmd, positional, cur)
}

// commandCandidates are the visible commands whose name starts with prefix.
func commandCandidates(app *ucli.App, prefix string) []candidate {
	var out []candidate
	for _, c := range app.VisibleCommands() {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, candidate{c.Name, c.Usage})
		}
	}
	return out
}

// flagCompletion offers the long names of flags that start with cur, but for the flags given
// already that take one value (a repeatable flag may come again).
func flagCompletion(flags []ucli.Flag, cur string, given map[string]bool) completion {
	var out []candidate
	for _, f := range flags {
		names := f.Names()
		if given[names[0]] && !isRepeatable(f) {
			continue
		}
		usage := strings.ReplaceAll(flagUsage(f), "`", "")
		for _, n := range names {
			if d := dashed(n); strings.HasPrefix(d, cur) && (len(n) > 1 || len(names) == 1) {
				out = append(out, candidate{d, usage})
			}
		}
	}
	return completion{cands: out, directive: compNoFiles}
}

// argCompletion completes the positional argument after positional others: a command's own
// (help's commands and topics, completion's shells, rules' ids), or file or directory names
// as the command's ARGS usage says; nothing for a command that takes none.
func argCompletion(app *ucli.App, cmd *ucli.Command, positional int, cur string) completion {
	var choices []candidate
	switch cmd.Name {
	case "help":
		if positional > 0 {
			return completion{directive: compNoFiles}
		}
		choices = append(helpWordCandidates(app), candidate{topicsWord, "list the help topics"})
	case "completion":
		if positional > 0 {
			return completion{directive: compNoFiles}
		}
		for _, sh := range completionShells {
			choices = append(choices, candidate{sh, ""})
		}
	case "rules":
		choices = ruleCandidates()
	default:
		switch {
		case cmd.ArgsUsage == "":
			return completion{directive: compNoFiles}
		case strings.Contains(cmd.ArgsUsage, "DIR"):
			return completion{directive: compDirsOnly}
		}
		return completion{} // files, as the shell completes them
	}
	return completion{cands: withPrefix(choices, cur), directive: compNoFiles}
}

// helpWordCandidates are the words `sunset help WORD` shows: the commands, then the topics
// (a topic named as a command is shown by the command's word).
func helpWordCandidates(app *ucli.App) []candidate {
	out := commandCandidates(app, "")
	for _, t := range help.Topics() {
		if app.Command(t.Name) == nil {
			out = append(out, candidate{t.Name, t.Summary})
		}
	}
	return out
}

// ruleCandidates are the built-in catalog's ids, with their titles.
func ruleCandidates() []candidate {
	var out []candidate
	for _, e := range catalog.Default().Entries() {
		out = append(out, candidate{string(e.ID), e.Title})
	}
	return out
}

// flagValueCompletion completes value, the value of flag f so far; prefix is what goes
// before it in the word ("--format=" when written in one word).
func flagValueCompletion(cmd *ucli.Command, f ucli.Flag, prefix, value string) completion {
	name := f.Names()[0]
	if name == flagFormat {
		if format, path, ok := strings.Cut(value, ":"); ok {
			return pathCompletion(prefix+format+":", path)
		}
	}
	if name == flagZonePlan && isRepeatable(f) { // fix: NAME=LEVEL
		zone, level, ok := strings.Cut(value, "=")
		if !ok {
			return completion{directive: compNoFiles}
		}
		prefix += zone + "="
		value = level
	}
	if choices := flagChoices(cmd.Name, name); choices != nil {
		for i := range choices {
			choices[i].value = prefix + choices[i].value
		}
		return completion{cands: withPrefix(choices, prefix+value), directive: compNoFiles}
	}
	switch placeholder(f) {
	case "DIR":
		return completion{directive: compDirsOnly}
	case "FILE", "JOURNAL":
		return completion{}
	}
	return completion{directive: compNoFiles}
}

// ownFormats are the --format names of the commands that write formats of their own; the
// others write the report formats.
var ownFormats = map[string][]string{
	"apply":     {"text", "json"},
	"verify":    {"table", "json"},
	"rules":     {"table", "json"},
	"translate": {"text", "json"},
	"fix":       {"diff", "json"},
	"version":   versionFormats,
}

// flagChoices lists the values a flag of a command takes, when they are a known few.
func flagChoices(cmd, flag string) []candidate {
	var values []string
	switch flag {
	case flagFormat:
		if own, ok := ownFormats[cmd]; ok {
			values = own
			break
		}
		var out []candidate
		for _, f := range reports.Formats() {
			out = append(out, candidate{f, reports.FormatDoc(f)})
		}
		return out
	case flagFailOn:
		values = []string{"error", "warning", "notice", "none"}
	case flagColor:
		values = []string{"auto", "always", "never"}
	case flagDates:
		values = []string{catalog.DatesSpec, catalog.DatesNotice}
	case "stdin-type":
		values = repo.KindNames()
	case "target":
		values = []string{"v5", "v4"}
	case flagZonePlan:
		values = []string{inventory.PlanFree, inventory.PlanPro, inventory.PlanBusiness, inventory.PlanEnterprise}
	default:
		return nil
	}
	out := make([]candidate, len(values))
	for i, v := range values {
		out[i] = candidate{value: v}
	}
	return out
}

// placeholderOf finds the `NAME` a flag's usage puts in backquotes: what its value is.
var placeholderOf = regexp.MustCompile("`([^`]+)`")

// placeholder is the kind of value a flag takes, from its usage's placeholder: DIR, FILE,
// JOURNAL, or another word (a number, a name, a glob).
func placeholder(f ucli.Flag) string {
	m := placeholderOf.FindStringSubmatch(flagUsage(f))
	if m == nil {
		return ""
	}
	return m[1]
}

// pathCompletion offers the files and directories that complete path, each after prefix (a
// format and its colon: the shell would complete the whole word as one file name).
func pathCompletion(prefix, path string) completion {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return completion{directive: compNoFiles}
	}
	var out []candidate
	directive := compNoFiles
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			name += "/"
			directive |= compNoSpace
		}
		out = append(out, candidate{value: prefix + dir + name})
	}
	return completion{cands: out, directive: directive}
}

// withPrefix keeps the candidates that start with prefix.
func withPrefix(cands []candidate, prefix string) []candidate {
	return slices.DeleteFunc(cands, func(c candidate) bool { return !strings.HasPrefix(c.value, prefix) })
}

// flagNamed is cmd's flag of that name (or alias), nil when it has none.
func flagNamed(cmd *ucli.Command, name string) ucli.Flag {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// flagUsage is a flag's usage text, "" for a flag without.
func flagUsage(f ucli.Flag) string {
	if d, ok := f.(ucli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

// takesValue reports whether a flag wants a value (as flagsFirst reads it).
func takesValue(f ucli.Flag) bool {
	d, ok := f.(ucli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// isRepeatable reports whether a flag may be given more than once.
func isRepeatable(f ucli.Flag) bool {
	_, ok := f.(*ucli.StringSliceFlag)
	return ok
}

// oneLine is text on one line: a candidate's description is the rest of its line.
func oneLine(text string) string {
	return strings.Join(strings.Fields(text), " ")
}
