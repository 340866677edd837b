package cli

import (
	"io"
	"os"
	"strconv"
	"time"

	"github.com/charmbracelet/x/term"
)

// Streams carries everything a command reads from or writes to the outside world, so that
// tests run commands on buffers with a fixed clock and environment.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// OutTTY and ErrTTY say whether Out and Err are terminals (tables and progress lines).
	OutTTY, ErrTTY bool
	// Width is the terminal width of Out, 0 when unknown.
	Width int
	// Getenv reads the environment (credentials, NO_COLOR, CI, GITHUB_STEP_SUMMARY). The
	// variables that stand for a flag (SUNSET_API_URL, SUNSET_AS_OF) are the flag's
	// EnvVars, read by urfave/cli with the command line.
	Getenv func(string) string
	// Now is the wall clock; the as-of date defaults to its UTC day.
	Now func() time.Time
	// Ticker ticks every d (progress lines when stderr is not a terminal) until its stop
	// function is called; nil prints no such line.
	Ticker func(d time.Duration) (tick <-chan time.Time, stop func())
}

// SystemStreams returns the process's standard streams, environment and clock.
func SystemStreams() *Streams {
	s := &Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Now: time.Now, Ticker: systemTicker}
	if term.IsTerminal(os.Stdout.Fd()) {
		s.OutTTY = true
		if w, _, err := term.GetSize(os.Stdout.Fd()); err == nil {
			s.Width = w
		}
	}
	s.ErrTTY = term.IsTerminal(os.Stderr.Fd())
	if s.Width == 0 {
		if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil {
			s.Width = n
		}
	}
	return s
}

// colorWanted decides whether styled output goes to a stream: --color always/never win;
// auto means a terminal without NO_COLOR, and CLICOLOR_FORCE forces it on.
func (s *Streams) colorWanted(mode string, tty bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if s.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := s.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return tty && s.Getenv("TERM") != "dumb"
}

// systemTicker is Streams.Ticker on the wall clock.
func systemTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
