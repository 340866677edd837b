package cli

import (
	"errors"
	"fmt"
)

// Exit codes of sunset (design page): 1 wins over 4 when both apply.
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

// usageErrorf is a bad flag, argument or configuration: exit 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

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

// outcomeCode folds a gate result and completeness into one code: 1 wins over 4.
func outcomeCode(gateFailed, incomplete bool) int {
	switch {
	case gateFailed:
		return ExitFindings
	case incomplete:
		return ExitIncomplete
	}
	return ExitOK
}
