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
// of zones zones (0: once every zone was read); nil otherwise.
func tempFullOf(lerr error, ps *planStream, read, zones int) *tempFullError {
	te, full := safefile.TempFull(lerr)
	if !full && ps != nil {
		te, full = safefile.TempFull(ps.failure())
	}
	if !full {
		return nil
	}
	if read == 0 {
		read = zones // the findings' list, written once every zone is scanned
	}
	return &tempFullError{te: te, read: read, zones: zones}
}

// endTempFull ends a scan or plan whose temporary files filled their directory: it says
// where, what they held and the least the run needs there, what was written, and how to
// continue, and exits 4 as an interrupted scan does. Other errors are returned unchanged.
func endTempFull(s *Streams, o *scanOptions, err error) error {
	var full *tempFullError
	if !errors.As(err, &full) {
		te, ok := safefile.TempFull(err)
		if !ok {
			return err
		}
		full = &tempFullError{te: te} // after the scan (zones unknown): see below
	}
	dir := textsafe.Sanitize(full.te.Dir)
	if s.Getenv("TMPDIR") != "" {
		dir = "$TMPDIR (" + dir + ")"
	} else {
		dir += " ($TMPDIR is not set)"
	}
	fmt.Fprintf(s.Err, "sunset: no space left in %s for the scan's temporary files (findings and plan): they held %s", dir, bytesText(full.te.Held))
	const room = "Free that much, or set TMPDIR to a directory with room"
	switch {
	case full.zones == 0:
		// After the scan: writing the plan directory's Terraform files.
		fmt.Fprintf(s.Err, " after every zone was read\nsunset: the scan needs more than that there. %s. The plan directory was not written whole\n", room)
	case full.read < full.zones:
		// Scaled to every zone, it is a floor: the zones read first are mostly the small
		// ones (fewer requests), a spill being written when it filled is not counted, the
		// findings are copied once to be sorted, and the Terraform files take more. Told
		// 13.1, 23.7 and 19.1 MB, scans took 30.5, 30.5 and 50 MB: hence three times.
		need := (full.te.Held*int64(full.zones) + int64(full.read) - 1) / int64(max(full.read, 1))
		fmt.Fprintf(s.Err, " after %d of %d zones\nsunset: the whole scan needs more than %s there (that, scaled to %d zones), and up to three times that, %s: the larger zones come last and the findings are copied once to be sorted. %s. No report or plan was written: they are written from those files\n",
			full.read, full.zones, bytesText(need), full.zones, bytesText(3*need), room)
	default:
		fmt.Fprintf(s.Err, " after every zone was read\nsunset: the scan needs more than that there. %s. No report or plan was written: they are written from those files\n", room)
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
