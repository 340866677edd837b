package apply

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// What a scope run knows of its entry points without reading them again: each one as the
// last read of it or the last answer of a write to it showed it, good while the run has
// written nothing since (any write of the scope, to any object: "nothing written between
// them"). A verify step, a journal's check, and the invariant's read before a removal that
// continues the unit before it (continues) are answered from it; every other read is sent.

// knownEntrypoint is an entry point as last read or written, and the run's writes by then.
type knownEntrypoint struct {
	rs     *inventory.Ruleset
	writes int
}

// call sends one request of the scope; a write (any method but GET) makes what the run
// knows of its entry points stale.
func (r *scopeRun) call(ctx context.Context, method, path string, body json.RawMessage, out any) error {
	if method != http.MethodGet {
		r.writes++
	}
	return r.opts.Client.Call(ctx, method, path, body, out)
}

// callIDs sends a bulk call naming its objects in the query (cfapi.Client.CallIDs).
func (r *scopeRun) callIDs(ctx context.Context, method, path string, ids []string, out any) error {
	r.writes++
	return r.opts.Client.CallIDs(ctx, method, path, ids, out)
}

// getEntrypoint reads the zone's entry point of phase (nil when it has none) and keeps it
// as known.
func (r *scopeRun) getEntrypoint(ctx context.Context, phase vocab.Phase) (*inventory.Ruleset, error) {
	rs, err := r.opts.Client.GetEntrypointRuleset(ctx, r.sc.id, phase)
	if err == nil {
		r.learnt(phase, rs)
	}
	return rs, err
}

// learnt keeps rs as the entry point of phase as it is now: read, or a write's answer.
func (r *scopeRun) learnt(phase vocab.Phase, rs *inventory.Ruleset) {
	if r.known == nil {
		r.known = map[vocab.Phase]knownEntrypoint{}
	}
	r.known[phase] = knownEntrypoint{rs: rs, writes: r.writes}
}

// fresh is the entry point of phase as known with nothing written since (ok false when it
// is not known so).
func (r *scopeRun) fresh(phase vocab.Phase) (*inventory.Ruleset, bool) {
	k, ok := r.known[phase]
	if !ok || k.writes != r.writes {
		return nil, false
	}
	return k.rs, true
}
