package cli

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
)

// progressInterval is how often a run whose stderr is not a terminal prints where it is,
// as Terraform prints "Still creating... [10s elapsed]": a CI log never sits silent.
const progressInterval = 30 * time.Second

// redrawInterval is the least time between two redraws of a terminal's progress line.
const redrawInterval = 100 * time.Millisecond

// progressState is what a progress line shows.
type progressState struct {
	verb, noun  string // "scanning" "zones", "applying" "scopes"
	done, total int
	failed      int
	requests    int
	// planned is the requests the run expects to send in all, shown as "/planned" (0: not
	// known); left the requests it expects still to send, for the ETA (< 0: unknown).
	planned int
	left    float64
}

// progress is the one progress facility of the commands that take long (scan, apply): on
// a terminal's stderr one line redrawn in place (not under CI: a CI log records every
// redraw), otherwise a line every progressInterval of Streams.Ticker, CI or not. It reads
// what to show from state, which must be safe to call from any goroutine.
type progress struct {
	s     *Streams
	rps   float64
	state func() progressState
	draw  bool
	start time.Time

	mu    sync.Mutex // the terminal line
	last  time.Time
	drawn bool

	stop, ended chan struct{} // the periodic lines' goroutine
}

// startProgress starts reporting progress on s.Err (see progress); rps is the pacing that
// bounds the ETA's rate (0: unpaced).
func (s *Streams) startProgress(rps float64, state func() progressState) *progress {
	p := &progress{s: s, rps: rps, state: state, start: s.Now(), draw: s.ErrTTY && s.Getenv("CI") == ""}
	if !p.draw && s.Ticker != nil {
		tick, stopTicker := s.Ticker(progressInterval)
		p.stop, p.ended = make(chan struct{}), make(chan struct{})
		go p.every(tick, stopTicker)
	}
	return p
}

// every prints a progress line at each tick until done.
func (p *progress) every(tick <-chan time.Time, stopTicker func()) {
	defer close(p.ended)
	defer stopTicker()
	for {
		select {
		case <-p.stop:
			return
		case <-tick:
			now := p.s.Now()
			fmt.Fprintf(p.s.Err, "sunset: still %s [%s elapsed]\n", p.line(now), now.Sub(p.start).Round(time.Second))
		}
	}
}

// changed redraws the terminal line, at most every redrawInterval unless final.
func (p *progress) changed(final bool) {
	if !p.draw {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.s.Now()
	if !final && p.drawn && now.Sub(p.last) < redrawInterval {
		return
	}
	p.last, p.drawn = now, true
	fmt.Fprintf(p.s.Err, "\r\x1b[K%s", p.line(now))
}

// done stops the periodic lines and clears the terminal line, so what follows starts on a
// clean row.
func (p *progress) done() {
	if p.stop != nil {
		close(p.stop)
		<-p.ended
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.s.Err, "\r\x1b[K")
		p.drawn = false
	}
}

// line renders the state: counts, rate, ETA.
func (p *progress) line(now time.Time) string {
	st := p.state()
	rate := 0.0
	if elapsed := now.Sub(p.start).Seconds(); elapsed > 0 {
		rate = float64(st.requests) / elapsed
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %d/%d · %s", st.verb, st.noun, st.done, st.total, thousands(st.requests))
	if st.planned > 0 {
		fmt.Fprintf(&b, "/%s", thousands(st.planned))
	}
	fmt.Fprintf(&b, " requests · %.1f req/s", rate)
	if st.failed > 0 {
		fmt.Fprintf(&b, " · %d failed", st.failed)
	}
	if eta, ok := p.eta(st, rate); ok {
		b.WriteString(" · ETA " + eta.Round(time.Second).String())
	}
	return b.String()
}

// eta is the requests left at the limiter's rate when pacing binds, else at the rate seen.
func (p *progress) eta(st progressState, seen float64) (time.Duration, bool) {
	if st.left < 0 || st.done >= st.total {
		return 0, false
	}
	rate := seen
	if p.rps > 0 && (rate == 0 || p.rps < rate) {
		rate = p.rps
	}
	if rate <= 0 {
		return 0, false
	}
	return time.Duration(st.left / rate * float64(time.Second)), true
}

// scanProgress feeds collect's progress to the progress facility.
type scanProgress struct {
	p  *progress
	mu sync.Mutex
	pr collect.Progress
}

func newProgress(s *Streams, rps float64, _ int) *scanProgress {
	sp := &scanProgress{}
	sp.p = s.startProgress(rps, sp.state)
	return sp
}

// update is collect's Progress callback.
func (sp *scanProgress) update(pr collect.Progress) {
	sp.mu.Lock()
	sp.pr = pr
	sp.mu.Unlock()
	sp.p.changed(pr.ZonesDone >= pr.ZonesTotal)
}

// state estimates the requests left as the zones left times what a zone read has cost so
// far (zones a resumed or incremental scan will reuse count as read: an overestimate).
func (sp *scanProgress) state() progressState {
	sp.mu.Lock()
	pr := sp.pr
	sp.mu.Unlock()
	st := progressState{verb: "scanning", noun: "zones", done: pr.ZonesDone, total: pr.ZonesTotal, failed: pr.ZonesFailed, requests: pr.Requests, left: -1}
	if read := pr.ZonesDone - pr.ZonesReused; read > 0 { // reused zones say nothing of a zone's cost
		st.left = float64(pr.ZonesTotal-pr.ZonesDone) * float64(pr.Requests) / float64(read)
	}
	return st
}

func (sp *scanProgress) done() { sp.p.done() }

// applyProgress feeds an apply's or a rollback's progress to the progress facility: scopes
// ended of the plan's, the requests sent of those estimated.
type applyProgress struct {
	p        *progress
	verb     string
	scopes   int
	planned  int
	client   *cfapi.Client
	before   int64 // the client's requests when the apply began
	finished atomic.Int64
}

func newApplyProgress(s *Streams, run *applyRun, client *cfapi.Client) *applyProgress {
	ap := &applyProgress{verb: "applying", scopes: len(run.plan.Accounts) + len(run.plan.Zones), client: client}
	switch {
	case run.rollback && run.loaded != nil:
		ap.verb, ap.planned = "rolling back", apply.EstimateRollback(run.loaded)
	case !run.yes && run.loaded != nil:
		// A dry run sends only the reads that confirm what the journal did.
		ap.verb, ap.planned = "reading back", apply.ConfirmReads(run.plan, run.loaded.Done())
	case run.loaded != nil:
		ap.planned = apply.EstimateLeft(run.plan, run.keepOld, run.loaded.Done())
	default:
		ap.planned = apply.EstimateRequests(run.plan, run.keepOld)
	}
	if client != nil {
		ap.before = client.Stats().Requests
	}
	ap.p = s.startProgress(run.rps, ap.state)
	return ap
}

func (ap *applyProgress) step(_ *apply.ScopeResult, _ apply.StepResult) { ap.p.changed(false) }

func (ap *applyProgress) scope(_ *apply.ScopeResult) {
	ap.finished.Add(1)
	ap.p.changed(false)
}

// state estimates the requests left from the plan's estimate, or, resuming (no estimate),
// as the scopes left times what an ended scope has cost.
func (ap *applyProgress) state() progressState {
	st := progressState{verb: ap.verb, noun: "scopes", done: int(ap.finished.Load()), total: ap.scopes, planned: ap.planned, left: -1}
	if ap.client != nil {
		st.requests = int(ap.client.Stats().Requests - ap.before)
	}
	switch {
	case ap.planned > 0:
		st.left = max(float64(ap.planned-st.requests), 0)
	case st.done > 0:
		st.left = float64(st.total-st.done) * float64(st.requests) / float64(st.done)
	}
	return st
}

func (ap *applyProgress) done() { ap.p.done() }
