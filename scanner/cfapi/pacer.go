package cfapi

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Pacing after a 429: the API answers every call with 429 for a while once the account's
// budget is spent, so one worker's 429 must hold back all of them. The pacer keeps a
// "nobody sends before T" gate and, while penalised, a lowered rate with a burst of 1.
const (
	// penaltyWindow is how long the lowered rate lasts after the gate opens.
	penaltyWindow = time.Minute
	// maxPenaltyLevel bounds the halving: the rate never drops below base/2^maxPenaltyLevel.
	maxPenaltyLevel = 4
	// minRetryAfterGate is the gate used for a 429 that carried no Retry-After.
	minRetryAfterGate = time.Second
)

// pacer is the one limiter a Client shares between all its goroutines. It reserves on the
// injected clock (never time.Now) and waits with the injected sleep, so tests can run it on
// a frozen clock and read the schedule from the reservations.
type pacer struct {
	mu        sync.Mutex
	lim       *rate.Limiter // nil when unlimited
	baseLimit rate.Limit
	baseBurst int
	last      time.Time // latest reservation time, kept monotonic for the limiter
	gate      time.Time // nobody sends before this
	level     int       // penalty level, 0 when not penalised
	until     time.Time // penalty ends (rate restored) at this time
	now       func() time.Time
	sleep     func(context.Context, time.Duration) error
}

func newPacer(rps float64, burst int, now func() time.Time, sleep func(context.Context, time.Duration) error) *pacer {
	p := &pacer{now: now, sleep: sleep}
	if rps > 0 {
		p.baseLimit = rate.Limit(rps)
		p.baseBurst = burst
		p.lim = rate.NewLimiter(p.baseLimit, burst)
	}
	return p
}

// reserve books the next send slot and returns when it is, without waiting.
func (p *pacer) reserve() (at time.Time, now time.Time) {
	now = p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	start := now
	if start.Before(p.gate) {
		start = p.gate
	}
	// rate.Limiter goes wrong when reservation times step backwards (it would count the
	// same interval twice), so reserve at a monotonic time.
	if start.Before(p.last) {
		start = p.last
	}
	p.last = start
	if p.lim == nil {
		return start, now
	}
	if p.level > 0 && !start.Before(p.until) {
		p.lim.SetLimitAt(start, p.baseLimit)
		p.lim.SetBurstAt(start, p.baseBurst)
		p.level = 0
	}
	r := p.lim.ReserveN(start, 1)
	return start.Add(r.DelayFrom(start)), now
}

// wait blocks until the next send slot, or until ctx is done. It returns the slot's time.
func (p *pacer) wait(ctx context.Context) (time.Time, error) {
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		at, now := p.reserve()
		if d := at.Sub(now); d > 0 {
			if err := p.sleep(ctx, d); err != nil {
				return time.Time{}, err
			}
		}
		// A 429 seen by another worker while this one slept moves the gate past a slot
		// booked earlier: book again behind the gate instead of sending into the 429s.
		p.mu.Lock()
		moved := at.Before(p.gate)
		p.mu.Unlock()
		if !moved {
			return at, nil
		}
	}
}

// penalize records a 429: nobody sends before now+retryAfter, and the rate is halved (down
// to base/16) with a burst of 1 until penaltyWindow after that.
func (p *pacer) penalize(retryAfter time.Duration) {
	if retryAfter < minRetryAfterGate {
		retryAfter = minRetryAfterGate
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if g := now.Add(retryAfter); g.After(p.gate) {
		p.gate = g
	}
	if p.lim == nil {
		return
	}
	if p.level < maxPenaltyLevel {
		p.level++
	}
	at := now
	if at.Before(p.last) {
		at = p.last
	}
	p.last = at
	p.lim.SetLimitAt(at, p.baseLimit/rate.Limit(int(1)<<p.level))
	p.lim.SetBurstAt(at, 1)
	p.until = p.gate.Add(penaltyWindow)
}

// snapshot returns the gate and current limit, for tests and diagnostics.
func (p *pacer) snapshot() (gate time.Time, limit rate.Limit, level int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lim != nil {
		limit = p.lim.Limit()
	} else {
		limit = rate.Inf
	}
	return p.gate, limit, p.level
}
