package cli

import (
	"errors"
	"fmt"

	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// tempFullError is a scan stopped because its temporary files (findings, plan) found no
// room: the reports and plan are written from them, so none is; what was read is in the
// --snapshot-out stream, which a resume continues.
type tempFullError struct {
	te *safefile.TempError
	// read is how many zones were scanned when it filled, of the zones listed.
	read, zones int
}

func (e *tempFullError) Error() string { return e.te.Error() }

func (e *tempFullError) Unwrap() error { return e.te }

// tempFullOf is the *tempFullError of a scan whose findings (lerr, from
// scanner.Live.ResultList) or plan (ps) could not be written for want of space, after read
// of zones zones; nil otherwise.
func tempFullOf(lerr error, ps *planStream, read, zones int) *tempFullError {
	te, full := safefile.TempFull(lerr)
	if !full && ps != nil {
		te, full = safefile.TempFull(ps.failure())
	}
	if !full {
		return nil
	}
	return &tempFullError{te: te, read: read, zones: zones}
}

// endTempFull ends a scan or plan whose temporary files filled their directory: it says
// where, what they held and about what the run needs there, what was written, and how to
// continue, and exits 4 as an interrupted scan does. Other errors are returned unchanged.
func endTempFull(s *Streams, o *scanOptions, err error) error {
	var full *tempFullError
	if !errors.As(err, &full) {
		te, ok := safefile.TempFull(err)
		if !ok {
			return err
		}
		// After the scan: writing the plan directory's Terraform files (the reports are
		// written by then).
		full = &tempFullError{te: te}
	}
	dir := textsafe.Sanitize(full.te.Dir)
	if s.Getenv("TMPDIR") != "" {
		dir = "$TMPDIR (" + dir + ")"
	} else {
		dir += " ($TMPDIR is not set)"
	}
	held := bytesText(full.te.Held)
	switch {
	case full.zones > 0 && full.read < full.zones:
		need := (full.te.Held*int64(full.zones) + int64(full.read) - 1) / int64(max(full.read, 1))
		fmt.Fprintf(s.Err, "sunset: no space left in %s for the scan's temporary files (findings and plan): they held %s when it filled, after %d of %d zones; the whole scan needs about %s there\n",
			dir, held, full.read, full.zones, bytesText(need))
	default:
		fmt.Fprintf(s.Err, "sunset: no space left in %s for the scan's temporary files (findings and plan): they held %s when it filled, after every zone was read; the scan needs more than that there\n",
			dir, held)
	}
	if full.zones > 0 {
		fmt.Fprintf(s.Err, "sunset: no report or plan was written (they are written from those files); free the space, or set TMPDIR to a directory with room\n")
	} else {
		fmt.Fprintf(s.Err, "sunset: the plan directory was not written whole; free the space, or set TMPDIR to a directory with room\n")
	}
	if o.snapshotIn != "" {
		fmt.Fprintf(s.Err, "sunset: then run it again: %s is unchanged\n", textsafe.Sanitize(o.snapshotIn))
	} else {
		printResumeHint(s, o)
	}
	return &exitError{code: ExitIncomplete}
}

// bytesText is n bytes for a person: kB below a megabyte, else MB or GB with one decimal.
func bytesText(n int64) string {
	switch {
	case n < 1e6:
		return fmt.Sprintf("%d kB", (n+999)/1000)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
