package apply

import (
	"github.com/sunsetscan/sunset/migrate"
)

// EstimateRequests is how many requests an apply of p sends when nothing is done yet,
// nothing fails and every list is one page: per scope, the reads holding its snapshot to the
// account before the first write (sourceReads: a list per collection of old objects, a read
// per other object); per entry point check 1; per entry point created 3 (read, PUT, read
// back); per rule added 2 (read, POST, whose answer is the read back); per object created 3
// (list, POST, list); per change or deletion 3 (read, write, read back); and the safety
// invariant's reads (invariantReads): every target before a zone's first pause, deletion or
// switch-off, the targets guarding each one before and after it, every target after the
// last.
func EstimateRequests(p *migrate.Plan, keepOld bool) int {
	n := 0
	for _, sc := range scopesOf(p, nil) {
		r := &scopeRun{opts: &Options{KeepOld: keepOld}, sc: sc}
		n += sc.sourceReads()
		first := true
		for _, st := range sc.steps {
			if st.Manual || (keepOld && deletes(st)) {
				continue
			}
			n += stepRequests(st) + r.invariantReads(st, first)
			first = first && !removes(st)
		}
	}
	return n
}

// stepRequests is what one step sends when it runs once, without the invariant's reads.
func stepRequests(st migrate.Step) int {
	spec := migrate.SpecOf(st)
	if spec == nil {
		return 0
	}
	return handlers[spec.Op].requests
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
