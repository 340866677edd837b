package cli

import (
	"fmt"
	"time"

	"github.com/sunsetscan/sunset/scanner/collect"
)

// progress draws one live line on a terminal's stderr while zones are collected. It is
// silent when stderr is not a terminal or CI is set, so logs stay clean.
type progress struct {
	s       *Streams
	on      bool
	rps     float64
	start   time.Time
	last    time.Time
	drawn   bool
	workers int
}

func newProgress(s *Streams, rps float64, workers int) *progress {
	on := s.ErrTTY && s.Getenv("CI") == ""
	now := s.Now()
	return &progress{s: s, on: on, rps: rps, start: now, workers: workers}
}

// update is collect's Progress callback (never called concurrently).
func (p *progress) update(pr collect.Progress) {
	if !p.on {
		return
	}
	now := p.s.Now()
	if pr.ZonesDone < pr.ZonesTotal && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(pr.Requests) / elapsed
	}
	line := fmt.Sprintf("scanning zones %d/%d · %d requests · %.1f req/s", pr.ZonesDone, pr.ZonesTotal, pr.Requests, rate)
	if pr.ZonesFailed > 0 {
		line += fmt.Sprintf(" · %d failed", pr.ZonesFailed)
	}
	if eta, ok := p.eta(pr, rate); ok {
		line += " · ETA " + eta.Round(time.Second).String()
	}
	fmt.Fprintf(p.s.Err, "\r\x1b[K%s", line)
	p.drawn = true
}

// eta estimates the time left: the zones left times the requests a zone read has cost so
// far (zones a resumed or incremental scan will reuse count as read: an overestimate), at
// the limiter's rate when pacing binds, else at the rate seen.
func (p *progress) eta(pr collect.Progress, seen float64) (time.Duration, bool) {
	read := pr.ZonesDone - pr.ZonesReused // reused zones cost nothing: they say nothing of a zone's cost
	if read <= 0 || pr.ZonesDone >= pr.ZonesTotal {
		return 0, false
	}
	left := float64(pr.ZonesTotal-pr.ZonesDone) * float64(pr.Requests) / float64(read)
	rate := seen
	if p.rps > 0 && (rate == 0 || p.rps < rate) {
		rate = p.rps
	}
	if rate <= 0 {
		return 0, false
	}
	return time.Duration(left / rate * float64(time.Second)), true
}

// done clears the line so the report starts on a clean row.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.s.Err, "\r\x1b[K")
	}
}
