package cfapi

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Pacing after a 429. The API answers every call with 429 for a while once the account's
// budget is spent, with a long Retry-After (its block lasts 5 minutes): one worker's 429 must
// then hold back all of them, and they come back slower. A short Retry-After is a throttle
// of that request, honoured exactly by that request alone: holding every worker back for
// each one (and halving the shared rate each time, as this pacer once did) turned a 15 s
// scan of a server that answers each new path once with "429, Retry-After: 1" into 9
// minutes. So the pacer keeps a "nobody sends before T" gate for the shared case, lowers
// the rate multiplicatively (at most once per round of requests) when a 429 says the pace
// itself is too fast, and raises it additively with every answer that is not a 429.
const (
	// sharedRetryAfter is the shortest Retry-After read as "the account's budget is spent":
	// it closes the gate for every worker. Shorter ones hold back only their own request.
	sharedRetryAfter = 10 * time.Second
	// minRetryAfterGate is the gate used for a 429 that carried no Retry-After.
	minRetryAfterGate = time.Second
	// minRateDivisor bounds the decrease: the rate never drops below base/minRateDivisor.
	minRateDivisor = 16
	// recoverySteps is how many answers bring the rate back from its floor to the base:
	// each adds base/recoverySteps.
	recoverySteps = 16
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
	slowedAt  time.Time // the last decrease; a 429 for a slot booked before it is the same congestion
	slowed    bool      // the rate is below the base
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
	start := p.monotonic(now)
	if start.Before(p.gate) {
		start = p.gate
		p.last = start
	}
	if p.lim == nil {
		return start, now
	}
	r := p.lim.ReserveN(start, 1)
	return start.Add(r.DelayFrom(start)), now
}

// monotonic returns t, or the latest reservation time when t is before it: rate.Limiter
// goes wrong when times step backwards (it would count the same interval twice). Called
// with mu held.
func (p *pacer) monotonic(t time.Time) time.Time {
	if t.Before(p.last) {
		return p.last
	}
	p.last = t
	return t
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

// block closes the gate for every worker until now+d (a gate already further out stays).
func (p *pacer) block(d time.Duration) {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if g := now.Add(d); g.After(p.gate) {
		p.gate = g
	}
}

// slowDown halves the rate (down to base/minRateDivisor) with a burst of 1, after a 429
// that says the pace itself is too fast. slot is when the 429's request was sent: the
// answers to requests sent before the last decrease report the same congestion and do not
// lower the rate again.
func (p *pacer) slowDown(slot time.Time) {
	if p.lim == nil {
		return
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.slowed && slot.Before(p.slowedAt) {
		return
	}
	at := p.monotonic(now)
	p.lim.SetLimitAt(at, max(p.lim.Limit()/2, p.baseLimit/minRateDivisor))
	p.lim.SetBurstAt(at, 1)
	p.slowed, p.slowedAt = true, at
}

// answered raises a lowered rate by base/recoverySteps after an answer that was not a 429;
// the base rate and burst are back once it reaches the base.
func (p *pacer) answered() {
	if p.lim == nil {
		return
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.slowed {
		return
	}
	at := p.monotonic(now)
	next := p.lim.Limit() + p.baseLimit/recoverySteps
	if next < p.baseLimit {
		p.lim.SetLimitAt(at, next)
		return
	}
	p.lim.SetLimitAt(at, p.baseLimit)
	p.lim.SetBurstAt(at, p.baseBurst)
	p.slowed = false
}

// snapshot returns the gate, the current limit and burst, for tests and diagnostics.
func (p *pacer) snapshot() (gate time.Time, limit rate.Limit, burst int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lim == nil {
		return p.gate, rate.Inf, 0
	}
	return p.gate, p.lim.Limit(), p.lim.Burst()
}
