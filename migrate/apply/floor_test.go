package apply

import (
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// FloorRequests is the same-safety minimum of an apply of p (cost.md, "Near its floor"):
// what any apply giving the same guarantees must send when nothing is done yet and nothing
// fails, counting every read that an earlier answer of the same scope cannot stand for:
//   - every write, in the API's bulk calls where it has them (at their caps), one POST a
//     rule added to an existing entry point, one create call a missing entry point, one
//     POST an object created;
//   - before the first write, every object a step pauses, changes or deletes read and held
//     to the snapshot (a page of its collection's list, or the object), and every existing
//     entry point rules are added to; before a create, the entry point or the objects it
//     is looked up among (a run that finds it done writes nothing, nothing is made twice);
//   - no read back: every write's answer shows what it did (the object or entry point as
//     written, the objects a bulk call wrote, the ids it deleted);
//   - the safety invariant: every entry point the plan targets read after the creates and
//     before the first removal (the verify steps), the entry points that replace what a
//     removal removes read right before it and right after it (every target after the
//     last), a read standing for a later one of the same entry point while no write of the
//     scope came between; a verify or check step's read, likewise;
//   - an object created looked up again after its POST (of two copies a race left, the
//     earlier stays), and each replacement of an old account object read before it is
//     retired.
func FloorRequests(p *migrate.Plan) int {
	n := 0
	for _, sc := range scopesOf(p, nil) {
		n += sc.floor()
	}
	return n
}

// floor is FloorRequests of one scope.
func (sc *scope) floor() int {
	n := sc.sourceReads()
	fresh := map[vocab.Phase]bool{} // entry points read or written with no write since
	read := func(phases []vocab.Phase) {
		for _, ph := range phases {
			if !fresh[ph] {
				n++
				fresh[ph] = true
			}
		}
	}
	wrote := func() { clear(fresh) }
	r := &scopeRun{opts: &Options{}, sc: *sc}
	for _, u := range sc.units() {
		todo := slices.DeleteFunc(slices.Clone(u.steps), func(st migrate.Step) bool { return st.Manual })
		if len(todo) == 0 || migrate.SpecOf(todo[0]) == nil {
			continue
		}
		spec := migrate.SpecOf(todo[0])
		removal := removes(todo[0])
		if removal {
			read(r.invariantPhases(todo, false))
			r.replacedChecked = true
		}
		n += replacementReads(*sc, todo)
		switch {
		case u.bulk != nil:
			n++
			wrote()
		case u.adds:
			n += 1 + len(todo) // the entry point held to the snapshot, a POST a rule
			wrote()
			fresh[spec.Phase] = true // the last POST's answer
		case spec.Op == migrate.OpVerify:
			read([]vocab.Phase{spec.Phase})
		case spec.Op == migrate.OpVerifyObject:
			n++
		case spec.Op == migrate.OpCreateEntrypoint:
			n += 2 // read first (a run that finds it done writes nothing), the create call
			wrote()
			fresh[spec.Phase] = true // the create call's answer
		case spec.Op == migrate.OpCreate:
			n += 3 // lookup, POST, lookup
			wrote()
		default: // a change or a deletion: its object was read at the start
			n++
			wrote()
		}
		if removal {
			read(r.invariantPhases(todo, true))
		}
	}
	return n
}
