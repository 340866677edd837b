package collect

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"
)

// maxZonesPerWorker bounds the zones in progress, Workers x maxZonesPerWorker, however many
// wait: each holds its goroutines and what it read so far.
const maxZonesPerWorker = 32

// place is a zone's (or account's) place among the Options.Workers collected at once. A
// zone gives it back while any of its requests waits out a Retry-After or a backoff (told
// by the Source through Options.WaitsFor), so another zone starts meanwhile, and takes one
// again, in turn with the zones waiting to start, when none of its requests waits: the
// requests that may go keep the workers busy, and without waits no more than Workers
// zones are in progress (what an interruption leaves half read).
type place struct {
	places *semaphore.Weighted
	ctx    context.Context

	take    sync.Mutex // serialises the taking back of the place
	mu      sync.Mutex // guards the fields below
	waiting int        // requests of the zone waiting before a retry
	held    bool
}

// newPlace is a place already taken (the zone was admitted with it).
func newPlace(ctx context.Context, places *semaphore.Weighted) *place {
	return &place{places: places, ctx: ctx, held: true}
}

// waitHook is the hook given to the Source: true when a request begins a wait, false when
// it ends.
func (p *place) waitHook(waiting bool) {
	if waiting {
		p.mu.Lock()
		p.waiting++
		give := p.waiting == 1 && p.held
		if give {
			p.held = false
		}
		p.mu.Unlock()
		if give {
			p.places.Release(1)
		}
		return
	}
	p.mu.Lock()
	p.waiting--
	want := p.waiting == 0 && !p.held
	p.mu.Unlock()
	if want {
		p.takeBack()
	}
}

// takeBack takes a place again for a zone none of whose requests waits any more; the
// request whose wait ended goes once it has. When a request began another wait meanwhile,
// the place goes back at once.
func (p *place) takeBack() {
	p.take.Lock()
	defer p.take.Unlock()
	p.mu.Lock()
	if p.held || p.waiting > 0 {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	if p.places.Acquire(p.ctx, 1) != nil {
		return // cancelled: the request ends with the context's error
	}
	p.mu.Lock()
	keep := p.waiting == 0
	p.held = keep
	p.mu.Unlock()
	if !keep {
		p.places.Release(1)
	}
}

// leave gives the place back when the zone ends.
func (p *place) leave() {
	p.take.Lock()
	defer p.take.Unlock()
	p.mu.Lock()
	held := p.held
	p.held = false
	p.mu.Unlock()
	if held {
		p.places.Release(1)
	}
}
