package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Exit codes of sunset (design page). 4 wins over 1 when both apply: an interrupted or
// incomplete run is told from a complete one with findings (outcomeCode).
const (
	ExitOK         = 0 // nothing at or above --fail-on
	ExitFindings   = 1 // findings at or above --fail-on
	ExitUsage      = 2 // usage or configuration error
	ExitFatal      = 3 // auth, network, unwritable output
	ExitIncomplete = 4 // some zones or files could not be read; reports still written
)

// exitError carries an exit code through urfave/cli up to Main. A nil err means the
// message was already printed (or there is none).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a bad flag, argument or configuration: exit 2. Errors among args stay in
// the chain (errors.Is and errors.As find them) even when formatted with %v or %s.
func usageErrorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	var causes []error
	for _, a := range args {
		if e, ok := a.(error); ok {
			causes = append(causes, e)
		}
	}
	if len(causes) > 0 {
		err = &causedError{msg: err.Error(), causes: causes}
	}
	return &exitError{code: ExitUsage, err: err}
}

// causedError is a message with the errors it was formatted from.
type causedError struct {
	msg    string
	causes []error
}

func (e *causedError) Error() string   { return e.msg }
func (e *causedError) Unwrap() []error { return e.causes }

// fatalError is a run that could not do its job (auth, network, output): exit 3.
func fatalError(err error) error { return &exitError{code: ExitFatal, err: err} }

// exitCode returns the code for an error returned by a command.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitFatal
}

// outcomeCode folds a gate result and completeness into one code: 4 wins over 1, so CI tells
// a run that was interrupted or could not read everything (its findings are not the whole
// story, and a rerun may find more) from a complete run that has findings. Either fails a
// gate: both are non-zero.
func outcomeCode(gateFailed, incomplete bool) int {
	switch {
	case incomplete:
		return ExitIncomplete
	case gateFailed:
		return ExitFindings
	}
	return ExitOK
}

// stopReason says in words why a run stopped early: Go's "context canceled" is no message
// for a user who pressed Ctrl-C.
func stopReason(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return "stopped: " + textsafe.Sanitize(err.Error())
}
