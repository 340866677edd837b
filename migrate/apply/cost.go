package apply

import (
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/vocab"
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
	return estimate(p, keepOld, done).total()
}

// purpose is what a request of an apply is for: the columns of cost.md's table.
type purpose int

// The purposes, in the table's order.
const (
	forHold        purpose = iota // a read holding the snapshot to the account before a write
	forVerify                     // a verify or check step's read
	forBefore                     // the invariant's read of an entry point right before a removal
	forWrite                      // a write of one object (PUT, PATCH, DELETE)
	forBulk                       // a bulk call
	forPost                       // a positioned POST of one rule
	forCreate                     // an entry point's create call, an object's POST
	forReadBack                   // a read after a write its answer does not show
	forAfter                      // the invariant's read of an entry point right after a removal
	forReplacement                // the list holding an old account object's replacement, before it is retired
	forLookup                     // the lists an object created is looked up in, before and after
	forConfirm                    // a read confirming what a journal did
	purposes
)

// purposeNames are the purposes' names in the table.
var purposeNames = [purposes]string{"hold", "verify", "before", "write", "bulk", "post", "create", "read back", "after", "replacement", "lookup", "confirm"}

// atStart and atEnd are the kinds a scope's reads before its first unit, and after its last
// (a resumed scope's journal check), are counted under.
const (
	atStart = "(scope start)"
	atEnd   = "(journal check)"
)

// costs are an estimate's requests by the kind of step they are sent for and by purpose.
type costs map[string]*[purposes]int

func (c costs) add(kind string, p purpose, n int) {
	if n == 0 {
		return
	}
	if c[kind] == nil {
		c[kind] = &[purposes]int{}
	}
	c[kind][p] += n
}

func (c costs) total() int {
	n := 0
	for _, row := range c {
		for _, v := range row {
			n += v
		}
	}
	return n
}

// estimate is EstimateLeft by kind and purpose.
func estimate(p *migrate.Plan, keepOld bool, done map[string]Entry) costs {
	out := costs{}
	for _, sc := range scopesOf(p, nil) {
		r := &scopeRun{opts: &Options{KeepOld: keepOld, Done: done}, sc: sc}
		c := &costWalk{r: r, left: map[string]int{}, loaded: map[string]bool{}, out: out}
		for coll, paths := range sc.sources() {
			c.left[coll] = len(paths)
		}
		resumed := r.resumed()
		if !resumed {
			out.add(atStart, forHold, sc.sourceReads())
			for coll := range sc.sources() {
				c.loaded[coll] = true
			}
		}
		units := sc.units()
		cont := sc.continued(units)
		for i, u := range units {
			r.continuing = cont[i]
			c.unit(u)
		}
		if resumed {
			out.add(atEnd, forConfirm, r.confirmReads())
		}
	}
	return out
}

// costWalk follows a scope's units as an apply sends them, counting requests; its scopeRun
// keeps what the run would know (the writes sent, the entry points known: known.go).
type costWalk struct {
	r *scopeRun
	// left is how many objects each listed collection holds, as the steps leave it; loaded
	// the collections whose list the run holds (read before the first write, or by a unit).
	left   map[string]int
	loaded map[string]bool
	out    costs
}

// unit counts what an apply sends for u when nothing fails (see EstimateRequests).
func (c *costWalk) unit(u unit) {
	var todo []migrate.Step
	for _, st := range u.steps {
		if _, done := c.r.opts.Done[c.r.key(st)]; done || st.Manual || (c.r.opts.KeepOld && deletes(st)) {
			continue // done by an earlier run, never sent, or held back by --keep-old
		}
		todo = append(todo, st)
	}
	if len(todo) == 0 || migrate.SpecOf(todo[0]) == nil {
		return
	}
	spec, coll, kind := migrate.SpecOf(todo[0]), collectionOf(todo[0].Path), string(todo[0].Kind)
	add := func(p purpose, n int) { c.out.add(kind, p, n) }
	if u.bulk != nil && !c.loaded[coll] {
		add(forHold, pages(coll, c.left[coll])) // its objects held by a read of the list
		c.loaded[coll] = true
	}
	add(forReplacement, replacementReads(c.r.sc, todo))
	c.read(forBefore, c.r.invariantReads(todo, false), add)
	if removes(todo[0]) {
		c.r.replacedChecked = true
	}
	switch {
	case u.bulk != nil:
		add(forBulk, 1) // its answer shows what it wrote: the read back
		c.r.writes++
		if spec.Op == migrate.OpDelete {
			c.left[coll] -= len(todo)
		}
	case u.adds:
		add(forHold, 1) // the entry point's read
		add(forPost, len(todo))
		c.r.writes += len(todo)
		c.r.learnt(spec.Phase, nil) // the last POST's answer
	default:
		c.step(todo[0], add)
	}
	c.read(forAfter, c.r.invariantReads(todo, true), add)
}

// read counts reads of entry points, known from then on.
func (c *costWalk) read(p purpose, phases []vocab.Phase, add func(purpose, int)) {
	add(p, len(phases))
	for _, ph := range phases {
		c.r.learnt(ph, nil)
	}
}

// step counts what an apply sends for one step sent on its own.
func (c *costWalk) step(st migrate.Step, add func(purpose, int)) {
	spec, coll := migrate.SpecOf(st), collectionOf(st.Path)
	switch spec.Op {
	case migrate.OpVerify:
		if _, ok := c.r.fresh(spec.Phase); !ok {
			c.read(forVerify, []vocab.Phase{spec.Phase}, add)
		}
	case migrate.OpVerifyObject:
		add(forVerify, 1)
	case migrate.OpCreateEntrypoint:
		add(forHold, 1)   // read first: found there, nothing is written
		add(forCreate, 1) // its answer is the entry point as created
		c.r.writes++
		c.r.learnt(spec.Phase, nil)
	case migrate.OpCreate:
		add(forLookup, 2)
		add(forCreate, 1)
		c.r.writes++
	case migrate.OpUpdate, migrate.OpDelete:
		if !c.loaded[coll] {
			add(forHold, 1) // read on its own; else the last read holds it
		}
		add(forWrite, 1) // its answer is the read back
		c.r.writes++
		if spec.Op == migrate.OpDelete && coll != "" {
			c.left[coll]--
		}
	}
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
