package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// incremental is what --resume, --since, --dry-run and the streamed --snapshot-out set up
// around one live collection (see beginCollection).
type incremental struct {
	resume, since string
	dryRun        bool

	prev   *inventory.Stream // the --resume or --since snapshot, read back
	writer *inventory.StreamWriter
	file   *os.File

	mu     sync.Mutex
	reused map[string]string // zone id -> name, taken from prev
	kept   map[string]inventory.ZoneInventory

	report *reports.Incremental // --since only
}

func incrementalFlags() []ucli.Flag {
	return inCategory(catRescan,
		&ucli.StringFlag{Name: "resume", Usage: "continue the interrupted scan whose --snapshot-out is `FILE`: zones it holds complete are not fetched again, the rest are appended to it"},
		&ucli.StringFlag{Name: "since", Usage: "rescan only the zones the accounts' audit logs show changed since snapshot `FILE` was taken; reuse the others from it"},
		&ucli.BoolFlag{Name: "dry-run", Usage: "list accounts and zones, print the requests the scan would send and the time they take at --rps, and exit"},
	)
}

// resolveIncremental reads the flags of incrementalFlags into o.
func resolveIncremental(c *ucli.Context, o *scanOptions) error {
	o.inc = &incremental{resume: c.String("resume"), since: c.String("since"), dryRun: c.Bool("dry-run")}
	inc := o.inc
	switch {
	case inc.resume != "" && inc.since != "":
		return usageErrorf("--resume and --since are alternatives: give one")
	case (inc.resume != "" || inc.since != "" || inc.dryRun) && o.snapshotIn != "":
		return usageErrorf("--resume, --since and --dry-run read the API; --snapshot scans a file offline")
	case inc.resume != "" && o.snapshotOut != "" && o.snapshotOut != inc.resume:
		return usageErrorf("--resume %s appends to that file; --snapshot-out %s names another", inc.resume, o.snapshotOut)
	case inc.since != "" && o.snapshotOut == inc.since:
		return usageErrorf("--snapshot-out %s: choose another file than --since, which is read as the scan runs", inc.since)
	}
	if inc.resume != "" && !inc.dryRun {
		o.snapshotOut = inc.resume
	}
	return nil
}

// beginCollection prepares copts for the collection readOrCollect is about to run: reads
// the --resume or --since snapshot, opens the --snapshot-out stream, reads the audit logs,
// and chains Options.OnZone and Options.Reuse. The returned function ends the stream and
// says what was reused; it returns an error to stop the command (for --dry-run, exit 0).
func (o *scanOptions) beginCollection(ctx context.Context, s *Streams, client *cfapi.Client, copts *collect.Options) (func(*inventory.Snapshot) error, error) {
	inc := o.inc
	if inc == nil { // verify, apply and demo write --snapshot-out whole, after collecting
		return func(*inventory.Snapshot) error { return nil }, nil
	}
	start := s.Now()
	if err := inc.readPrevious(s); err != nil {
		return nil, err
	}
	if inc.resume != "" && inc.prev != nil {
		copts.Reuse = collect.ReuseComplete(inc.prev)
		copts.ReuseAccount = collect.ReuseCompleteAccounts(inc.prev, nil)
		if !inc.prev.Header.TakenAt.IsZero() {
			start = inc.prev.Header.TakenAt // the snapshot is as old as its oldest zone
		}
	}
	if inc.since != "" {
		inc.sinceReuse(ctx, s, client, start, copts)
	}
	if inc.dryRun {
		copts.ListOnly = true
		return func(listed *inventory.Snapshot) error { return inc.printDryRun(s, o, client, *copts, listed) }, nil
	}
	if o.snapshotOut != "" {
		if err := inc.openStream(o.snapshotOut, copts.Source, start); err != nil {
			return nil, err
		}
	}
	inc.chain(copts)
	return inc.finish(s), nil
}

// readPrevious reads the --resume or --since snapshot. A --resume file that does not exist
// yet, or was killed before its first line was whole, starts a new scan.
func (inc *incremental) readPrevious(s *Streams) error {
	path, flag := inc.resume, "--resume"
	if path == "" {
		path, flag = inc.since, "--since"
	}
	if path == "" {
		return nil
	}
	f, err := openInput(path, maxSavedFile)
	if inc.resume != "" && errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(s.Err, "sunset: --resume %s: no such file yet; starting a new scan there\n", textsafe.Sanitize(path))
		return nil
	}
	if err != nil {
		return usageErrorf("%s: %v", flag, err)
	}
	defer func() { _ = f.Close() }() // read only
	st, err := inventory.ReadStream(f)
	switch {
	case inc.resume != "" && errors.Is(err, inventory.ErrStreamHeaderCut):
		fmt.Fprintf(s.Err, "sunset: --resume %s: the scan was killed before its first zone; starting it again\n", textsafe.Sanitize(path))
		return nil
	case err != nil:
		return usageErrorf("%s %s: %v", flag, path, err)
	case inc.resume != "" && st.Header.Format == "":
		return usageErrorf("--resume %s: a single-document snapshot (written before snapshots were streamed) cannot be continued; use --since %s, or scan anew", path, path)
	}
	inc.prev = st
	return nil
}

// openStream opens the --snapshot-out stream: appended to after the last whole line when
// resuming, else created.
func (inc *incremental) openStream(path, source string, start time.Time) error {
	var f *os.File
	var err error
	if inc.resume != "" && inc.prev != nil {
		f, err = openAppend(path, inc.prev.Valid)
		if err == nil {
			inc.writer = inventory.AppendStreamWriter(f, inc.prev)
		}
	} else {
		f, err = safefile.Create(path)
		if err == nil {
			inc.writer, err = inventory.NewStreamWriter(f, source, start)
		}
	}
	if err != nil {
		if f != nil {
			_ = f.Close() // the error that matters is err
		}
		return fatalError(fmt.Errorf("cannot write snapshot %s: %w", path, err))
	}
	inc.file = f
	return nil
}

// openAppend opens path for writing after its first valid bytes, dropping a line a kill
// cut short; never through a symbolic link.
func openAppend(path string, valid int64) (*os.File, error) {
	if err := safefile.NotLink(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(valid); err != nil {
		_ = f.Close()
		return nil, err
	}
	if _, err := f.Seek(valid, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// chain makes every collected zone go to the stream (and, when the caller keeps the whole
// snapshot, into kept), and records the zones Reuse takes.
func (inc *incremental) chain(copts *collect.Options) {
	onZone, reuse := copts.OnZone, copts.Reuse
	keep := onZone == nil // the caller needs the snapshot whole (a plan)
	if inc.writer == nil && reuse == nil {
		return
	}
	inc.reused, inc.kept = map[string]string{}, map[string]inventory.ZoneInventory{}
	if reuse != nil {
		copts.Reuse = func(z inventory.Zone) (*inventory.ZoneInventory, bool) {
			inv, ok := reuse(z)
			if ok {
				inc.mu.Lock()
				inc.reused[z.ID] = z.Name
				inc.mu.Unlock()
			}
			return inv, ok
		}
	}
	copts.OnZone = func(z *inventory.ZoneInventory) {
		if inc.writer != nil {
			inc.writer.Zone(z)
		}
		if onZone != nil {
			onZone(z)
		}
		if keep {
			inc.mu.Lock()
			inc.kept[z.Zone.ID] = *z
			inc.mu.Unlock()
		}
	}
}

// finish returns the function that ends the collection: the zones kept whole go back into
// the snapshot, the stream gets its last lines, and --since says what it reused.
func (inc *incremental) finish(s *Streams) func(*inventory.Snapshot) error {
	return func(snap *inventory.Snapshot) error {
		if snap != nil && len(inc.kept) > 0 {
			for i := range snap.Zones {
				if k, ok := inc.kept[snap.Zones[i].Zone.ID]; ok {
					k.Errors, k.Retired = snap.Zones[i].Errors, snap.Zones[i].Retired
					snap.Zones[i] = k
				}
			}
		}
		if snap != nil {
			inc.summarize(s, snap)
		}
		if inc.file == nil {
			return nil
		}
		var err error
		if snap != nil {
			err = inc.writer.Finish(snap)
		}
		if cerr := inc.file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fatalError(fmt.Errorf("cannot write snapshot: %w", err))
		}
		return nil
	}
}

// summarize says on stderr what a resumed or incremental run reused, and fills the
// report's incremental section for --since.
func (inc *incremental) summarize(s *Streams, snap *inventory.Snapshot) {
	if inc.resume != "" && inc.prev != nil {
		fmt.Fprintf(s.Err, "sunset: resumed %s: %d zones taken from it, %d read now\n",
			textsafe.Sanitize(inc.resume), len(inc.reused), len(snap.Zones)-len(inc.reused))
	}
	if inc.report == nil {
		return
	}
	r := inc.report
	now := map[string]bool{}
	for _, z := range snap.Zones {
		now[z.Zone.ID] = true
		if _, ok := inc.reused[z.Zone.ID]; ok {
			r.Reused = append(r.Reused, z.Zone.Name)
		} else {
			r.Rescanned = append(r.Rescanned, z.Zone.Name)
		}
	}
	if inc.prev != nil {
		had := map[string]bool{}
		for _, z := range inc.prev.Snapshot.Zones {
			had[z.Zone.ID] = true
			if !now[z.Zone.ID] {
				r.Removed = append(r.Removed, z.Zone.Name)
			}
		}
		for _, z := range snap.Zones {
			if !had[z.Zone.ID] {
				r.Added = append(r.Added, z.Zone.Name)
			}
		}
	}
	for _, l := range [][]string{r.Rescanned, r.Reused, r.Added, r.Removed} {
		sort.Strings(l)
	}
	if r.Rescanned == nil {
		r.Rescanned = []string{}
	}
	if r.Reused == nil {
		r.Reused = []string{}
	}
	printIncremental(s, r)
}

// incrementalReport is the report's incremental section (nil unless --since).
func (o *scanOptions) incrementalReport() *reports.Incremental {
	if o.inc == nil {
		return nil
	}
	return o.inc.report
}

// streamsSnapshot reports whether --snapshot-out is written as the collection runs (a
// live sunset scan or plan), rather than whole at the end (verify, apply, demo, --snapshot).
func (o *scanOptions) streamsSnapshot() bool { return o.inc != nil && o.snapshotIn == "" }

// resumeSkips are the flags a resume command leaves out: those it sets itself (--resume,
// --snapshot-out) or --plan-dir's (given apart), and those that would make it another run
// (--since, --dry-run) or read no API (--snapshot).
var resumeSkips = map[string]bool{
	"resume": true, "snapshot-out": true, "since": true, "dry-run": true, "snapshot": true,
	flagPlanDir: true, "plan": true, "out-dir": true, "help": true,
}

// resumeCommand is the command that continues the interrupted run of c (a scan, or a plan,
// whose flags scan takes too) and writes the same outputs: `sunset scan --resume FILE`, FILE
// being its --snapshot-out, with every flag it was given but those resumeSkips names, the
// plan directory when it writes one, and the day it judged by when it was not given (a
// resume tomorrow would judge otherwise), then extra. "" when it saves no snapshot to
// continue from.
func resumeCommand(c *ucli.Context, snapshotOut, planDir string, asOf time.Time, extra ...string) string {
	if snapshotOut == "" {
		return ""
	}
	args := append([]string{"sunset", "scan", "--resume", shellWord(snapshotOut)}, givenFlags(c, resumeSkips)...)
	if !c.IsSet(flagAsOf) {
		args = append(args, "--"+flagAsOf, asOf.Format(time.DateOnly))
	}
	if planDir != "" {
		args = append(args, "--"+flagPlanDir, shellWord(planDir))
	}
	args = append(args, extra...)
	return textsafe.Sanitize(strings.Join(args, " "))
}

// pricedSkips are the flags the scan a dry run priced leaves out: --dry-run, and the outputs
// it names itself.
var pricedSkips = map[string]bool{"dry-run": true, "snapshot-out": true, flagPlanDir: true, "plan": true, "out-dir": true, "help": true}

// pricedCommand is the scan a dry run priced: its command line without --dry-run (and
// without the --api-url SUNSET_API_URL gives it), keeping its snapshot and writing its plan
// (to the files it names, else the README's snap.jsonl and plan/; a resumed scan writes its
// snapshot to the one it continues).
func pricedCommand(c *ucli.Context, getenv func(string) string, inc *incremental, snapshotOut, planDir string) string {
	skip := pricedSkips
	if url := getenv("SUNSET_API_URL"); url != "" && url == c.String("api-url") {
		skip = maps.Clone(pricedSkips)
		skip["api-url"] = true
	}
	args := append([]string{"sunset", "scan"}, givenFlags(c, skip)...)
	if inc.resume == "" {
		args = append(args, "--snapshot-out", shellWord(cmp.Or(snapshotOut, "snap.jsonl")))
	}
	args = append(args, "--"+flagPlanDir, shellWord(cmp.Or(planDir, "plan/")))
	return textsafe.Sanitize(strings.Join(args, " ")) + "   # the scan priced here: its snapshot kept, its plan written"
}

// givenFlags are the flags c was given, as words of a command line, but those skip names
// (--api-url without its user info or query).
func givenFlags(c *ucli.Context, skip map[string]bool) []string {
	var args []string
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if skip[name] || !c.IsSet(name) {
			continue
		}
		switch f.(type) {
		case *ucli.BoolFlag:
			if c.Bool(name) {
				args = append(args, "--"+name)
			}
		case *ucli.StringSliceFlag:
			for _, v := range c.StringSlice(name) {
				args = append(args, "--"+name, shellWord(v))
			}
		default:
			v := fmt.Sprint(c.Value(name))
			if name == "api-url" {
				v = shownURL(v) // never its user info or query
			}
			args = append(args, "--"+name, shellWord(v))
		}
	}
	return args
}

// shellWord is s as one word of a POSIX shell: as it is when it holds only characters no
// shell reads otherwise, else single-quoted.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printResumeHint ends the stderr of an interrupted scan (or plan) with how to continue it:
// the command (resumeCommand), or that nothing was saved to continue from. The demo, whose
// emulator ends with it, says nothing.
func printResumeHint(s *Streams, o *scanOptions) {
	switch {
	case o.sourceKind == reports.SourceDemo:
	case o.resumeCmd != "":
		fmt.Fprintf(s.Err, "sunset: to continue where it stopped and write the same outputs: %s\n", o.resumeCmd)
	default:
		fmt.Fprintf(s.Err, "sunset: nothing was saved to continue from: run it again with --snapshot-out FILE to make it resumable (sunset help resume)\n")
	}
}
