package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/collect"
)

// lineWriter sends every line written to it on lines, and keeps all it was given.
type lineWriter struct {
	mu    sync.Mutex
	all   bytes.Buffer
	part  []byte
	lines chan string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 1000)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.part[:i])
		w.part = w.part[i+1:]
	}
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// testClock is a wall clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// tickedStreams are streams with stderr not a terminal, the clock and a ticker the test
// drives: started gets a value when a ticker is made, stopped when one is stopped.
type tickedStreams struct {
	*Streams
	err              *lineWriter
	clock            *testClock
	tick             chan time.Time
	started, stopped chan struct{}
}

func newTickedStreams(env map[string]string, errTTY bool) *tickedStreams {
	ts := &tickedStreams{err: newLineWriter(), clock: &testClock{now: fixedNow}, tick: make(chan time.Time),
		started: make(chan struct{}, 4), stopped: make(chan struct{}, 4)}
	ts.Streams = &Streams{
		In: strings.NewReader(""), Out: &syncBuffer{}, Err: ts.err, ErrTTY: errTTY,
		Getenv: func(k string) string { return env[k] }, Now: ts.clock.Now,
		Ticker: func(d time.Duration) (<-chan time.Time, func()) {
			if d != progressInterval {
				panic("ticker of " + d.String())
			}
			ts.started <- struct{}{}
			return ts.tick, func() { ts.stopped <- struct{}{} }
		},
	}
	return ts
}

// tickLine moves the clock by a progress interval, ticks, and returns the progress line
// printed (the other lines of stderr before it are passed over).
func (ts *tickedStreams) tickLine() string {
	ts.tick <- ts.clock.add(progressInterval)
	for {
		if line := <-ts.err.lines; strings.HasPrefix(line, "sunset: still ") {
			return line
		}
	}
}

// TestScanProgressWithoutATerminal: with stderr not a terminal, CI or not, the scan prints a
// progress line at every tick (zones, requests, rate, ETA, time elapsed) and never the
// terminal's redrawn line; done stops the ticker.
func TestScanProgressWithoutATerminal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		errTTY bool
	}{
		{"not a terminal", nil, false},
		{"a terminal under CI", map[string]string{"CI": "true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTickedStreams(tc.env, tc.errTTY)
			p := newProgress(ts.Streams, 4, 1)
			<-ts.started
			p.update(collect.Progress{ZonesDone: 1, ZonesTotal: 4, Requests: 30})
			got := []string{ts.tickLine()}
			p.update(collect.Progress{ZonesDone: 3, ZonesTotal: 4, ZonesFailed: 1, Requests: 90})
			got = append(got, ts.tickLine())
			p.done()
			<-ts.stopped
			want := []string{
				"sunset: still scanning zones 1/4 · 30 requests · 1.0 req/s · ETA 1m30s [30s elapsed]",
				"sunset: still scanning zones 3/4 · 90 requests · 1.5 req/s · 1 failed · ETA 20s [1m0s elapsed]",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if all := ts.err.String(); strings.Contains(all, "\r") || all != strings.Join(want, "\n")+"\n" {
				t.Errorf("stderr %q", all)
			}
		})
	}
}

// TestScanProgressOnATerminal: on a terminal (no CI) the line is redrawn in place and no
// periodic line is printed.
func TestScanProgressOnATerminal(t *testing.T) {
	ts := newTickedStreams(nil, true)
	p := newProgress(ts.Streams, 0, 1)
	p.update(collect.Progress{ZonesDone: 1, ZonesTotal: 2, Requests: 10})
	ts.clock.add(time.Second)
	p.update(collect.Progress{ZonesDone: 2, ZonesTotal: 2, Requests: 20})
	p.done()
	select {
	case <-ts.started:
		t.Error("a ticker was made on a terminal")
	default:
	}
	want := "\r\x1b[Kscanning zones 1/2 · 10 requests · 0.0 req/s\r\x1b[Kscanning zones 2/2 · 20 requests · 20.0 req/s\r\x1b[K"
	if got := ts.err.String(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// TestApplyProgressWithoutATerminal: an apply whose stderr is not a terminal prints, at every
// tick while it runs, the scopes ended of the plan's, the requests sent of those estimated,
// the rate, the ETA and the time elapsed. The apply is held at its first write while the
// test ticks.
func TestApplyProgressWithoutATerminal(t *testing.T) {
	srv := newEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	firstWrite, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			once.Do(func() { close(firstWrite) })
			<-release
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ts := newTickedStreams(demoEnv(), false)
	code := make(chan int, 1)
	go func() {
		code <- Run(context.Background(), []string{"sunset", "apply", "--api-url", hs.URL + emulator.BasePath, "--rps", "0",
			"--as-of", "2026-11-24", "--yes", "--journal", t.TempDir() + "/j"}, ts.Streams)
	}()
	<-ts.started // the scan's
	<-ts.stopped
	<-ts.started // the apply's
	<-firstWrite
	line := regexp.MustCompile(`^sunset: still applying scopes [0-9]/9 · [1-9][0-9]*/[1-9][0-9]* requests · [0-9.]+ req/s · ETA [0-9hms.]+ \[(30s|1m0s) elapsed\]$`)
	for range 2 {
		if got := ts.tickLine(); !line.MatchString(got) {
			t.Errorf("progress line %q does not match %s", got, line)
		}
	}
	close(release)
	if c := <-code; c != ExitOK {
		t.Fatalf("exit %d\n%s", c, ts.err.String())
	}
	<-ts.stopped
	if strings.Contains(ts.err.String(), "\r") {
		t.Errorf("a terminal's line on a stderr that is not one: %q", ts.err.String())
	}
}
