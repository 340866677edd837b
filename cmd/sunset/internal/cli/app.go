// Package cli is the sunset command line: urfave/cli/v2 wiring, flags, exit codes. Commands
// read and write only through Streams, so tests run them in-process on buffers.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// ExitInterrupted is the exit code when a second interrupt, termination or hang-up signal
// stops sunset at once, without finishing its reports (128 + SIGINT, as shells report Ctrl-C).
const ExitInterrupted = 130

// stopSignals end a run: Ctrl-C, and the signals of a service manager, a CI runner's cancel
// or a closed terminal, which would otherwise kill the process before any report is written.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Main runs sunset with args (args[0] is the program name) and returns the exit code. The first
// stop signal (SIGINT, SIGTERM, SIGHUP) cancels the run, which then writes its reports marked
// incomplete; a second one exits at once with ExitInterrupted.
func Main(args []string, s *Streams) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	for _, sig := range stopSignals {
		// A signal ignored at start stays ignored (nohup, a shell's background job): notifying
		// for it would install a handler and end the run on it after all.
		if !signal.Ignored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go watchSignals(sigs, done, cancel, func() {
		if s.ErrTTY {
			fmt.Fprint(s.Err, "\r\x1b[K") // over a progress line, if one is drawn
		}
		fmt.Fprintf(s.Err, "sunset: interrupted again; exiting without finishing\n")
		os.Exit(ExitInterrupted)
	})
	return Run(ctx, args, s)
}

// watchSignals cancels the run on the first signal and calls exit on the second, until done.
func watchSignals(sigs <-chan os.Signal, done <-chan struct{}, cancel func(), exit func()) {
	for first := true; ; first = false {
		select {
		case <-done:
			return
		case <-sigs:
		}
		if !first {
			exit()
			return
		}
		cancel()
	}
}

// Run is Main with a caller-owned context (cancelled by Main on the first stop signal).
func Run(ctx context.Context, args []string, s *Streams) int {
	app := newApp(s)
	line := parseCommandLine(app, args)
	err := line.err
	if err == nil {
		err = checkHelpTopic(app, line.args)
	}
	if err == nil {
		err = app.RunContext(ctx, line.args)
	}
	code := exitCode(err)
	if err != nil && err.Error() != "" {
		printError(s.Err, err)
		if code == ExitUsage && wantsUsageHint(err) {
			fmt.Fprintln(s.Err, line.usageHint())
		}
	}
	return code
}

// printError writes an error on stderr, a "sunset: " line for each line of its message.
// Messages carry text from the account, a repository or a file (names, paths, the API's own
// messages): each line is sanitised (textsafe.Sanitize), so no escape sequence or control
// character reaches the terminal, and every line starts with "sunset: ", so none can pass for
// a CI log command such as a forged "::error ...".
func printError(w io.Writer, err error) {
	for _, line := range strings.Split(userText(err.Error()), "\n") {
		if line = textsafe.Sanitize(line); line != "" {
			fmt.Fprintf(w, "sunset: %s\n", line)
		}
	}
}

// internalPrefix is the package name the collector's errors start with ("collect: listing
// accounts: ..."), at the start of a message or of a wrapped part of it.
var internalPrefix = regexp.MustCompile(`(^|: )collect: `)

// userText is an error message as users read it: without package names, and with Go's
// "context canceled" said as what happened. Only the printed text changes; the error keeps
// its chain for errors.Is and errors.As.
func userText(msg string) string {
	msg = internalPrefix.ReplaceAllString(msg, "$1")
	msg = strings.ReplaceAll(msg, context.Canceled.Error(), "interrupted")
	msg = strings.ReplaceAll(msg, context.DeadlineExceeded.Error(), "timed out")
	return strings.ReplaceAll(msg, "interrupted: interrupted", "interrupted")
}

func newApp(s *Streams) *ucli.App {
	app := &ucli.App{
		Name:    "sunset",
		Usage:   "find deprecated zone management API usage and plan its migration",
		Version: Version,
		// The root --version (versionFlag) prints what `sunset version` does.
		HideVersion: true,
		Flags:       []ucli.Flag{versionFlag()},
		Description: strings.TrimSpace(`
sunset scans live accounts and configuration repositories for deprecated endpoints,
objects and fields of the zone management API, and writes the plans that migrate them.

Start with 'sunset demo': it runs a scan against a built-in emulator, no account needed.

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or
configuration error, 3 fatal (auth, network, unwritable output), 4 incomplete run (a part
that could not be read, an endpoint that answered retired, or Ctrl-C, SIGTERM or SIGHUP,
once the reports are written; 4 wins over 1), 130 a second such signal, which exits at once.`),
		Writer:         s.Out,
		ErrWriter:      s.Err,
		Reader:         s.In,
		Suggest:        true,
		ExitErrHandler: func(*ucli.Context, error) {},
		OnUsageError:   onUsageError,
		// The root action runs only when no command matched: a bare "sunset" shows help, an
		// unknown word is a usage error (urfave/cli would otherwise exit 3 on its own).
		Action: func(c *ucli.Context) error {
			if c.Bool("version") {
				return writeVersion(c.App.Writer, "text", build())
			}
			if c.NArg() > 0 {
				return unknownCommand(c.App, "unknown command", c.Args().First())
			}
			return ucli.ShowAppHelp(c)
		},
		Commands: commands(s),
	}
	addHelp(app, s)
	for _, cmd := range app.Commands {
		cmd.OnUsageError = app.OnUsageError
		// `sunset help CMD` is the help command; no command has a "help" subcommand, so
		// `sunset check help` checks a path named help.
		cmd.HideHelpCommand = true
	}
	return app
}

// commands lists the subcommands. Each lives in its own file with its options struct.
func commands(s *Streams) []*ucli.Command {
	return []*ucli.Command{
		// In the order a newcomer meets them: the demo, the two main jobs, what they produce,
		// then the tools around them.
		demoCommand(s),
		scanCommand(s),
		checkCommand(s),
		planCommand(s),
		verifyCommand(s),
		applyCommand(s),
		fixCommand(s),
		translateCommand(s),
		reportCommand(s),
		rulesCommand(s),
		emulatorCommand(s),
		completionCommand(s),
		versionCommand(s),
		completeCommand(s),
	}
}

// noArgs rejects stray positional arguments for commands that take none.
func noArgs(c *ucli.Context) error {
	if c.NArg() == 0 {
		return nil
	}
	arg := c.Args().First()
	if hint, ok := argHints[c.Command.Name]; ok {
		return usageErrorf("%s takes no arguments (got %q): did you mean %s?", c.Command.Name, arg, strings.ReplaceAll(hint, "FILE", arg))
	}
	return usageErrorf("%s takes no arguments (got %q)", c.Command.Name, arg)
}

// argHints are the flags a file given as an argument most likely belongs to, per command.
var argHints = map[string]string{
	"scan": "--snapshot FILE",
	"plan": "--snapshot FILE",
}

// writeTo opens a --format destination: "" or "-" is Out, else a file created fresh, never
// through a symbolic link at path (refused).
func (s *Streams) writeTo(path string) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return s.Out, func() error { return nil }, nil
	}
	f, err := createOutput(path)
	if err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u // an *os.PathError: the path is named here
		}
		if re := (*safefile.RefusedError)(nil); errors.As(err, &re) {
			err = errors.New(re.Reason)
		}
		return nil, nil, fatalError(fmt.Errorf("cannot write %s: %w", path, err))
	}
	return f, f.Close, nil
}
