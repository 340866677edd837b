package cli

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/collect"
)

// commandLine is the command line as sunset reads it: the program name, the root flags, the
// command and its arguments with every flag ahead of the positional arguments.
type commandLine struct {
	args []string
	// cmd is the command named, nil when none is or the word is not a command.
	cmd *ucli.Command
	// err is a flag that wants a value and ends the line.
	err error
}

// parseCommandLine finds the command in args (args[0] is the program name) and moves its
// flags ahead of its positional arguments, so that `sunset check . --format sarif` reads as
// `sunset check --format sarif .`: urfave/cli v2 parses with Go's flag package, which stops
// at the first positional argument. A flag that takes a value keeps the argument after it as
// its value, whatever it looks like (as the flag package reads it); after "--" nothing is a
// flag. With --help (-h) the positional arguments are dropped: help is shown whatever else
// the line says (urfave would read the first one as a help topic).
func parseCommandLine(app *ucli.App, args []string) commandLine {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		i++ // the root flags (--help, --version) take no value
	}
	if i >= len(args) {
		return commandLine{args: args}
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return commandLine{args: args}
	}
	if cmd.Name == "help" || cmd.SkipFlagParsing {
		// help's words are commands and topics, __complete's a command line: as given
		return commandLine{args: args, cmd: cmd}
	}
	rest, err := flagsFirst(cmd.Flags, args[i+1:])
	return commandLine{args: append(append([]string(nil), args[:i+1]...), rest...), cmd: cmd, err: err}
}

// flagsFirst reorders a command's arguments: its flags (with their values) first, then "--"
// when the line had one, then the positional arguments in their order. A flag that wants a
// value and ends the line is an error: moved ahead, it would take a positional argument.
func flagsFirst(flags []ucli.Flag, args []string) ([]string, error) {
	takesValue := map[string]bool{}
	for _, f := range flags {
		if d, ok := f.(ucli.DocGenerationFlag); ok && d.TakesValue() {
			for _, n := range f.Names() {
				takesValue[n] = true
			}
		}
	}
	var front, positional, afterDashes []string
	dashes, help := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			dashes, afterDashes = true, args[i+1:]
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		front = append(front, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		help = help || isHelpFlag(name)
		if !hasValue && takesValue[name] {
			if i+1 == len(args) {
				return nil, needsValue(dashed(name))
			}
			i++
			front = append(front, args[i])
		}
	}
	if help {
		return front, nil
	}
	if dashes {
		// "--" goes ahead of every positional argument: the flag package keeps a "--" that
		// follows one as an argument.
		front = append(front, "--")
	}
	return append(append(front, positional...), afterDashes...), nil
}

// dashed writes a flag name as it is typed: two dashes for a long name, one for a letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// needsValue is the error for a flag given without the value it takes.
func needsValue(flag string) error { return usageErrorf("%s needs a value", flag) }

func isHelpFlag(name string) bool {
	for _, n := range ucli.HelpFlag.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// usageHint is the last line of a usage error: where the help of the command is.
func (l commandLine) usageHint() string {
	if l.cmd == nil {
		return "Run 'sunset --help' for usage."
	}
	if l.cmd.Name == "help" {
		return "Run 'sunset help topics' for the topics, 'sunset --help' for the commands."
	}
	return fmt.Sprintf("Run 'sunset %s --help' for usage.", l.cmd.Name)
}

// wantsUsageHint reports whether an exit-2 error is about the command line, where the help
// helps. Zone entries that matched nothing are about the account: the error names the
// closest zones instead.
func wantsUsageHint(err error) bool {
	var unmatched *collect.UnmatchedZonesError
	return !errors.As(err, &unmatched)
}

// flagInMessage is a flag name in a message of Go's flag package, which writes every flag
// with one dash ("-format"); group 2 is the name.
var flagInMessage = regexp.MustCompile(`(^|[\s:])-([A-Za-z0-9][\w-]+)`)

// onUsageError turns a flag parsing error of Go's flag package into the message sunset
// prints: long flags with two dashes, as they are typed; an unknown flag with the closest one
// the command has; a value that does not parse with the kind of value the flag wants.
func onUsageError(c *ucli.Context, err error, _ bool) error {
	msg := flagInMessage.ReplaceAllString(err.Error(), "$1--$2")
	where := "" // the root command: every line already starts with "sunset: "
	if c.Command != nil && c.Command.Name != c.App.Name {
		where = c.Command.Name + ": "
	}
	if unknown, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name := strings.TrimLeft(unknown, "-")
		msg = fmt.Sprintf("%sunknown flag %s", where, unknown)
		if s := suggestFlag(c, name); s != "" {
			msg += "\n" + s
		} else if others := commandsWithFlag(c.App, name); len(others) > 0 {
			msg += fmt.Sprintf(" (a flag of %s)", strings.Join(others, ", "))
		}
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return needsValue(name)
	} else if m := badValue.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %s: want %s", m[2], m[1], valueKind(c, m[2]))
	}
	return usageErrorf("%s", msg)
}

// badValue is the flag package's message for a value that does not parse: the value (quoted)
// and the flag's name.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value ("[^"]*") for (?:flag )?--?([\w-]+): `)

// valueKind says what a flag's value must be, for a value that did not parse.
func valueKind(c *ucli.Context, name string) string {
	if c.Command != nil {
		for _, f := range c.Command.Flags {
			if !slices.Contains(f.Names(), name) {
				continue
			}
			switch f.(type) {
			case *ucli.IntFlag, *ucli.Int64Flag, *ucli.UintFlag, *ucli.Uint64Flag:
				return "a whole number"
			case *ucli.Float64Flag:
				return "a number"
			case *ucli.BoolFlag:
				return "true or false, or no value"
			}
		}
	}
	return "another value"
}

// commandsWithFlag names the commands that have a flag: given to one that does not, it may
// be no typo at all.
func commandsWithFlag(app *ucli.App, name string) []string {
	var out []string
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			if slices.Contains(f.Names(), name) && !isHelpFlag(name) {
				out = append(out, cmd.Name)
				break
			}
		}
	}
	return out
}

// suggestFlag is urfave/cli's "Did you mean" for a flag the command does not have, or "".
func suggestFlag(c *ucli.Context, name string) string {
	if ucli.SuggestFlag == nil || c.Command == nil {
		return ""
	}
	s := ucli.SuggestFlag(c.Command.Flags, name, c.Command.HideHelp)
	if !plausible(name, strings.TrimLeft(s, "-")) {
		return ""
	}
	return fmt.Sprintf(ucli.SuggestDidYouMeanTemplate, s)
}

// suggestCommand is urfave/cli's "Did you mean" for a word that is not a command, or "".
func suggestCommand(commands []*ucli.Command, word string) string {
	if ucli.SuggestCommand == nil {
		return ""
	}
	s := ucli.SuggestCommand(commands, word)
	var best string
	if _, err := fmt.Sscanf(s, ucli.SuggestDidYouMeanTemplate, &best); err != nil || !plausible(word, best) {
		return ""
	}
	return s
}

// plausible filters urfave/cli's suggestions: its Jaro-Winkler match always names the best
// candidate, however far ("frobnicate" -> "translate", "color" -> "catalog"). A typo keeps
// the first two letters, or the first and about the length.
func plausible(typed, suggestion string) bool {
	if len(typed) < 2 || len(suggestion) < 2 || typed[0] != suggestion[0] {
		return false
	}
	return typed[1] == suggestion[1] || max(len(typed), len(suggestion))-min(len(typed), len(suggestion)) <= 1
}

// unknownCommand is the error for a word that is not a command (nor help for one).
func unknownCommand(app *ucli.App, what, word string) error {
	msg := fmt.Sprintf("%s %q", what, word)
	if s := suggestCommand(app.Commands, word); s != "" {
		msg += "\n" + s
	}
	return usageErrorf("%s", msg)
}

// checkHelpTopic refuses `sunset help WORD` for a WORD that is neither a command nor a help
// topic before any command runs: it is a usage error (exit 2), with the closest command.
func checkHelpTopic(app *ucli.App, args []string) error {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			continue
		}
		if a != "help" && a != "h" {
			return nil
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !isHelpWord(app, args[i+1]) {
			return unknownHelpWord(app, args[i+1])
		}
		return nil
	}
	return nil
}
