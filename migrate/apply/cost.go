package apply

import (
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// EstimateRequests is how many requests an apply of p sends when nothing is done yet,
// nothing fails and each collection holds only the objects the steps name: per scope, the
// reads holding its snapshot to the account before the first write (sourceReads: a list per
// collection of old objects, a read per other object), then per unit (units):
//   - a bulk call: the call, and the collection read back (a page per cfapi.PerPage of the
//     objects left in it); its objects as the collection's last read holds them;
//   - rules added to an existing entry point: its read, and a POST a rule (each answer is
//     the read back); an entry point created: its read, and the create call;
//   - a verify step: a read;
//   - a change or deletion: the write and its read back, plus a read before it of an
//     object not in a listed collection; an object created: list, POST, list; the check of
//     an object that stands for the plan's: its list;
//
// and the safety invariant's reads around each removal unit (invariantPhases): before it
// the entry points that replace what it removes (every target before the scope's first
// removal), after it the same (every target after the last); before a step retiring an old
// account object, the list holding its replacement (replacementReads).
func EstimateRequests(p *migrate.Plan, keepOld bool) int { return EstimateLeft(p, keepOld, nil) }

// EstimateLeft is EstimateRequests of an apply resumed from a journal whose done steps are
// done (Loaded.Done): what is left to send, and the reads that confirm what the journal
// did (ConfirmReads). A scope an earlier run began is not held to the snapshot again; what
// its earlier run read is not known, so the estimate counts the reads of a fresh unit.
func EstimateLeft(p *migrate.Plan, keepOld bool, done map[string]Entry) int {
	n := 0
	for _, sc := range scopesOf(p, nil) {
		r := &scopeRun{opts: &Options{KeepOld: keepOld, Done: done}, sc: sc}
		c := &costWalk{r: r, left: map[string]int{}}
		for coll, paths := range sc.sources() {
			c.left[coll] = len(paths)
		}
		if r.resumed() {
			n += r.confirmReads()
		} else {
			n += sc.sourceReads()
		}
		for _, u := range sc.units() {
			n += c.unit(u)
		}
	}
	return n
}

// costWalk follows a scope's units as an apply sends them, counting requests.
type costWalk struct {
	r *scopeRun
	// left is how many objects each listed collection holds, as the steps leave it.
	left map[string]int
}

// unit is what an apply sends for u when nothing fails (see EstimateRequests).
func (c *costWalk) unit(u unit) int {
	var todo []migrate.Step
	for _, st := range u.steps {
		if _, done := c.r.opts.Done[c.r.key(st)]; done || st.Manual || (c.r.opts.KeepOld && deletes(st)) {
			continue // done by an earlier run, never sent, or held back by --keep-old
		}
		todo = append(todo, st)
	}
	if len(todo) == 0 || migrate.SpecOf(todo[0]) == nil {
		return 0
	}
	op, coll := migrate.SpecOf(todo[0]).Op, collectionOf(todo[0].Path)
	n := len(c.r.invariantPhases(todo, false)) + replacementReads(c.r.sc, todo)
	if removes(todo[0]) {
		c.r.replacedChecked = true
	}
	switch {
	case u.bulk != nil:
		n++
		if op == migrate.OpDelete {
			c.left[coll] -= len(todo)
		}
		n += pages(coll, c.left[coll])
	case u.adds:
		n += 1 + len(todo) // the entry point's read, a POST a rule
	case (op == migrate.OpUpdate || op == migrate.OpDelete) && coll != "":
		n += handlers[op].requests - 1 // the read before: the collection's last list
		if op == migrate.OpDelete {
			c.left[coll]--
		}
	default:
		n += handlers[op].requests
	}
	return n + len(c.r.invariantPhases(todo, true))
}

// pages is how many pages a read of the collection holding n objects takes.
func pages(coll string, n int) int {
	per := cfapi.PerPage(coll)
	if per <= 0 || n <= per {
		return 1
	}
	return (n + per - 1) / per
}

// ConfirmReads is how many reads a resumed apply of p makes to confirm what the journal
// says was done (done: Loaded.Done), when nothing fails: each resumed scope's targets and
// the objects the journal created.
func ConfirmReads(p *migrate.Plan, done map[string]Entry) int {
	n := 0
	for _, sc := range scopesOf(p, nil) {
		r := &scopeRun{opts: &Options{Done: done}, sc: sc}
		for _, st := range sc.steps {
			if _, ok := done[r.key(st)]; ok {
				n += r.confirmReads()
				break
			}
		}
	}
	return n
}

// replacementReads is how many reads replacementThere makes before steps: one (a page) per
// dependency that put in place what a step retiring an old account object needs.
func replacementReads(sc scope, steps []migrate.Step) int {
	n := 0
	for _, st := range steps {
		spec := migrate.SpecOf(st)
		for _, id := range st.DependsOn {
			if i, ok := sc.index[id]; ok && spec != nil && slices.Contains(spec.ReplacedBy, sc.steps[i].Kind) {
				n++
			}
		}
	}
	return n
}
