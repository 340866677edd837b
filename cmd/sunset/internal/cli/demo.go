package cli

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

const demoReportDefault = "sunset-demo-report.json"

// demoHTMLDefault is the name of the demo's HTML report, written next to the JSON one.
const demoHTMLDefault = "sunset-demo-report.html"

// demoHTMLPath is where the demo writes its HTML report: --html when given ("" for none),
// else next to the JSON report (none when there is no JSON report either).
func demoHTMLPath(c *ucli.Context) string {
	if c.IsSet("html") {
		return c.String("html")
	}
	if report := c.String("report"); report != "" {
		return filepath.Join(filepath.Dir(report), demoHTMLDefault)
	}
	return ""
}

func demoCommand(s *Streams) *ucli.Command {
	flags := inCategory(catOutput,
		&ucli.StringFlag{Name: "report", Value: demoReportDefault, Usage: "write the JSON report to `FILE` (\"\" for none)"},
		&ucli.StringFlag{Name: "html", Value: demoHTMLDefault, Usage: "write the HTML report to `FILE` (\"\" for none; default: next to the --report file)"},
	)
	for _, f := range reportFlags() {
		if f.Names()[0] == flagFailOn {
			// The demo shows findings; it is not a gate unless asked to be.
			f = inCategory(catOutput, &ucli.StringFlag{Name: flagFailOn, Value: "none", Usage: "exit 1 when a finding is at or above `LEVEL` (default none for the demo)"})[0]
		}
		flags = append(flags, f)
	}
	// The demo's scan is scan's: the same --workers, and a snapshot to keep.
	flags = append(flags, inCategory("The demo's scan", workersFlag(),
		&ucli.StringFlag{Name: "snapshot-out", Usage: "save the demo account's snapshot to `FILE`"})...)
	return &ucli.Command{
		Name:  "demo",
		Usage: "scan the built-in demo account (starts the emulator in-process; no credentials, no network)",
		Description: "Starts the API emulator on a loopback port with the hand-built demo account, scans it over\n" +
			"real HTTP with the same code as 'sunset scan', prints the findings and writes a JSON report.",
		Flags: slices.Concat(flags, judgingFlags(), planDirFlags()),
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			d, err := resolveDemo(c, s)
			if err != nil {
				return err
			}
			return runDemo(c.Context, s, d)
		},
	}
}

// demoOptions is what `sunset demo` resolved: the scan's options but its source, which is the
// emulator the demo starts, and the report files it names.
type demoOptions struct {
	judgeOptions
	reportOutput
	workers              int
	snapshotOut          string
	planDir              string
	verify               bool
	reportPath, htmlPath string
}

// resolveDemo reads the demo's flags: the report files join the --format outputs.
func resolveDemo(c *ucli.Context, s *Streams) (*demoOptions, error) {
	d := &demoOptions{workers: c.Int("workers"), snapshotOut: c.String("snapshot-out"), verify: !c.Bool(flagNoVerify),
		reportPath: c.String("report"), htmlPath: demoHTMLPath(c)}
	var err error
	if d.workers < 1 {
		return nil, usageErrorf("--workers %d: want at least 1", d.workers)
	}
	if d.reportOutput, err = resolveReport(c, s); err != nil {
		return nil, err
	}
	if d.judgeOptions, err = resolveJudging(c, s); err != nil {
		return nil, err
	}
	if d.planDir, err = planDirOf(c, s); err != nil {
		return nil, err
	}
	if d.reportPath != "" {
		d.formats = append(d.formats, reports.FormatSpec{Format: "json", Path: d.reportPath})
	}
	if d.htmlPath != "" {
		d.formats = append(d.formats, reports.FormatSpec{Format: "html", Path: d.htmlPath})
	}
	// Named as the demo's flags before the emulator starts; runScan checks them again.
	if err := checkOutputs(append(fileOutput("--report", d.reportPath), fileOutput("--html", d.htmlPath)...)); err != nil {
		return nil, err
	}
	return d, nil
}

// runDemo starts the emulator and scans it as `sunset scan` does: unpaced (the in-process
// emulator has no rate limit to respect), with the demo's token.
func runDemo(ctx context.Context, s *Streams, d *demoOptions) error {
	base, stop, err := startDemoEmulator(ctx, d.asOf)
	if err != nil {
		return err
	}
	defer stop()
	src := sourceOptions{
		baseURL: base, creds: cfapi.TokenCredentials(seed.DemoToken), snapshotOut: d.snapshotOut,
		retries: cfapi.DefaultMaxRetries, sourceKind: reports.SourceDemo,
		collect: collectOptions(nil, nil, "", d.workers),
	}
	opts := &scanOptions{sourceOptions: src, judgeOptions: d.judgeOptions, reportOutput: d.reportOutput,
		planDir: d.planDir, verify: d.verify,
		// Said once the reports are written, before the closing summary line.
		afterReports: func() {
			if d.reportPath != "" {
				fmt.Fprintf(s.Err, "report written to %s\n", textsafe.Sanitize(d.reportPath))
			}
			if d.htmlPath != "" {
				fmt.Fprintf(s.Err, "HTML report written to %s (open it in a browser; it works offline)\n", textsafe.Sanitize(d.htmlPath))
			}
		},
	}
	return runScan(ctx, s, opts)
}

// startDemoEmulator serves the demo account on 127.0.0.1 with an OS-chosen port, with its
// clock at the scan's as-of date, and returns its base URL and a stop function.
func startDemoEmulator(ctx context.Context, asOf time.Time) (string, func(), error) {
	srv, err := emulator.New(emulator.Options{
		AsOf: asOf, Seed: seed.Demo(),
		Token: seed.DemoToken, Email: seed.DemoEmail, Key: seed.DemoKey,
	})
	if err != nil {
		return "", nil, fatalError(fmt.Errorf("demo emulator: %w", err))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fatalError(fmt.Errorf("demo emulator: cannot listen on loopback: %w", err))
	}
	ctx, cancel := context.WithCancel(ctx)
	conns := &connTracker{Listener: ln, open: map[net.Conn]bool{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = emulator.Serve(ctx, conns, srv)
	}()
	// The scan is over when stop runs: close every connection rather than let the graceful
	// shutdown wait for them. A connection the client dialled but never used counts as
	// active for 5s in net/http's Shutdown, which held the demo's exit back that long.
	stop := func() { cancel(); conns.closeAll(); <-done }
	return "http://" + ln.Addr().String() + "/client/v4", stop, nil
}

// connTracker is a listener that remembers the connections it accepted, so that they can
// all be closed at once; once closed, it closes any connection still being accepted.
type connTracker struct {
	net.Listener
	mu     sync.Mutex
	open   map[net.Conn]bool
	closed bool
}

// Accept accepts and tracks a connection.
func (l *connTracker) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close() // shutting down: the connection never carried a request
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, l: l}
	l.open[tc] = true
	return tc, nil
}

// closeAll closes every tracked connection and the ones accepted from now on.
func (l *connTracker) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for c := range l.open {
		_ = c.(*trackedConn).Conn.Close() // shutting down: nothing more is sent or read
	}
	clear(l.open)
}

// trackedConn forgets itself when closed.
type trackedConn struct {
	net.Conn
	l *connTracker
}

func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.open, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}
