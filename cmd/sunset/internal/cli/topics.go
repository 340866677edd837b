package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
)

// topicsWord is the argument of `sunset help topics`, which lists the help topics.
const topicsWord = "topics"

// addHelp gives the app sunset's help command (commands and topics) and every command its
// EXAMPLES and LEARN MORE sections. newApp calls it before its commands are set up.
func addHelp(app *ucli.App, s *Streams) {
	app.Commands = append(app.Commands, helpCommand(s))
	// urfave/cli adds --help to the root only when it adds its own help command.
	app.Flags = append(app.Flags, ucli.HelpFlag)
	app.CustomAppHelpTemplate = ucli.AppHelpTemplate + "\nHELP TOPICS:\n" + quoted(topicList()) +
		"   Read one with 'sunset help TOPIC'; 'sunset help COMMAND' shows a command's help and its topic.\n"
	for _, cmd := range app.Commands {
		cmd.CustomHelpTemplate = commandHelpTemplate() + commandHelpTail(cmd.Name)
	}
}

// helpCommand is `sunset help [COMMAND|TOPIC]`. It replaces urfave/cli's own, which knows
// commands only.
func helpCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, a command's help, or a help topic ('sunset help topics' lists them)",
		ArgsUsage: "[COMMAND|TOPIC]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "man", Usage: "write the manual pages to `DIR`: sunset.1, sunset-COMMAND.1 for each command, sunset-TOPIC.7 for each topic"},
		},
		Action: func(c *ucli.Context) error {
			// Flags after the word are no help topic: `sunset help check --x` is check's help.
			words := slices.DeleteFunc(c.Args().Slice(), func(a string) bool { return strings.HasPrefix(a, "-") })
			if dir := c.String("man"); dir != "" {
				if len(words) > 0 {
					return usageErrorf("help --man writes every page: it takes no command or topic (got %q)", words[0])
				}
				return writeManPages(c.App, dir, s)
			}
			switch len(words) {
			case 0:
				return ucli.ShowAppHelp(c)
			case 1:
				return showHelp(c, words[0])
			}
			return usageErrorf("help takes one command or topic (got %d)", len(words))
		},
	}
}

// showHelp prints what `sunset help WORD` shows: the list of topics for "topics"; a command's
// help (as `sunset CMD --help`), followed by the topic of the same name when there is one (the
// reference behind the flags: `sunset help apply` is apply's help, then how an apply runs); or
// a topic alone.
func showHelp(c *ucli.Context, word string) error {
	w := c.App.Writer
	if word == topicsWord {
		fmt.Fprint(w, "HELP TOPICS:\n"+topicList()+"\nRead one with 'sunset help TOPIC'.\n")
		return nil
	}
	topic, isTopic := help.Terminal(word)
	if cmd := c.App.Command(word); cmd != nil {
		if err := ucli.ShowCommandHelp(c, cmd.Name); err != nil {
			return err
		}
		if isTopic && cmd.Name == word {
			printTopic(w, topic)
		}
		return nil
	}
	if !isTopic {
		return unknownHelpWord(c.App, word)
	}
	fmt.Fprint(w, topic)
	return nil
}

// printTopic writes a topic after a command's help, under a rule that says where it starts.
func printTopic(w io.Writer, topic string) {
	fmt.Fprintf(w, "\n%s\n\n%s", strings.Repeat("-", 72), topic)
}

// isHelpWord reports whether `sunset help WORD` has something to show.
func isHelpWord(app *ucli.App, word string) bool {
	if word == topicsWord || app.Command(word) != nil {
		return true
	}
	return help.Has(word)
}

// unknownHelpWord is the error for `sunset help WORD` when WORD is neither a command nor a
// topic: "Did you mean" picks among both.
func unknownHelpWord(app *ucli.App, word string) error {
	words := slices.Clone(app.Commands)
	for _, t := range help.Topics() {
		words = append(words, &ucli.Command{Name: t.Name})
	}
	msg := fmt.Sprintf("no help for %q", word)
	if s := suggestCommand(words, word); s != "" {
		msg += "\n" + s
	}
	return usageErrorf("%s", msg)
}

// topicList is the topics, one a line, each with its summary, as help templates indent them.
func topicList() string {
	var b strings.Builder
	topics := help.Topics()
	width := 0
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	for _, t := range topics {
		fmt.Fprintf(&b, "   %-*s  %s\n", width, t.Name, t.Summary)
	}
	return b.String()
}

// quoted is text as a literal of a text/template, so that braces in it are not actions.
func quoted(text string) string { return "{{" + strconv.Quote(text) + "}}" }
