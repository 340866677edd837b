package apply

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// listedCollections are the collections whose objects sourcesFresh reads in lists (one
// request a page); any other object a step changes is read on its own.
var listedCollections = []string{"firewall/rules", "filters", "rate_limits", "firewall/waf/overrides", "load_balancers/pools", "access/bookmarks"}

// sources are the objects a scope's steps pause, change or delete, by collection path (""
// for the objects read on their own): the ones the plan's new rules and objects are
// translated from.
func (sc *scope) sources() map[string][]string {
	out := map[string][]string{}
	for _, st := range sc.steps {
		spec := migrate.SpecOf(st)
		if st.Manual || spec == nil || (spec.Op != migrate.OpUpdate && spec.Op != migrate.OpDelete) {
			continue
		}
		coll := collectionOf(st.Path)
		if !slices.Contains(out[coll], st.Path) {
			out[coll] = append(out[coll], st.Path)
		}
	}
	return out
}

// sourcesFresh runs before a scope's first write: every object its steps pause, change or
// delete is read (in lists where the API has them) and compared with the snapshot the plan
// was built from. The new rules and objects are translated from these, so a snapshot that
// was edited, or that the account has moved on from, stops the scope before anything is
// created from it (the per-step checks come only after the creates).
func (r *scopeRun) sourcesFresh(ctx context.Context) error {
	for coll, paths := range r.sc.sources() {
		live, err := r.readSources(ctx, coll, paths)
		if err != nil {
			return err
		}
		r.lists[coll] = live // "": the objects read on their own
		for _, p := range paths {
			want := r.expected(p)
			if want == nil || live[p] == nil || r.sc.changedAlready(p, live[p]) {
				continue // not in the snapshot, gone, or changed as planned: the step decides
			}
			if at := differs(live[p], want, ""); at != "" {
				return stale("%s: %s differs from the snapshot", p, at)
			}
		}
	}
	return nil
}

// changedAlready reports whether the live object shows the write of a step of the scope
// on it (an earlier apply of the same plan did it).
func (sc *scope) changedAlready(path string, live any) bool {
	for _, st := range sc.steps {
		if st.Path != path || st.Method == http.MethodDelete || st.Manual {
			continue
		}
		if body, err := decodeAny(st.Body); err == nil && len(st.Body) > 0 && contains(live, body) {
			return true
		}
	}
	return false
}

// readSources reads the objects at paths: the collection's list, or each on its own.
func (r *scopeRun) readSources(ctx context.Context, coll string, paths []string) (map[string]any, error) {
	out := map[string]any{}
	if coll == "" {
		for _, p := range paths {
			obj, err := r.read(ctx, p)
			if err != nil {
				return nil, err
			}
			out[p] = obj
		}
		return out, nil
	}
	items, err := cfapi.ListAt[json.RawMessage](ctx, r.opts.Client, coll)
	if err != nil {
		return nil, err
	}
	for _, raw := range items {
		obj, err := decodeAny(raw)
		if m, ok := obj.(map[string]any); ok && err == nil {
			if id, ok := m["id"].(string); ok {
				out[coll+"/"+id] = obj
			}
		}
	}
	return out, nil
}

// sourceReads is how many requests sourcesFresh makes when the collections hold only the
// objects the steps name (a page per cfapi.PerPage of them; one page where the API sets it).
func (sc *scope) sourceReads() int {
	n := 0
	for coll, paths := range sc.sources() {
		switch per := cfapi.PerPage(coll); {
		case coll == "":
			n += len(paths)
		case per > 0:
			n += (len(paths) + per - 1) / per
		default:
			n++
		}
	}
	return n
}

// listed is the collection's objects by path as last read, read now when they are not known
// (no read yet in this run, or a bulk call sent since without a read back).
func (r *scopeRun) listed(ctx context.Context, coll string) (map[string]any, error) {
	if live, ok := r.lists[coll]; ok {
		return live, nil
	}
	return r.relist(ctx, coll)
}

// relist reads the collection's list now and keeps it as the last read.
func (r *scopeRun) relist(ctx context.Context, coll string) (map[string]any, error) {
	live, err := r.readSources(ctx, coll, nil)
	if err != nil {
		return nil, err
	}
	r.lists[coll] = live
	return live, nil
}

// current is the object at path as last read, when nothing was written to it since: from
// its collection's last list, or from its own read before the scope's first write (an
// object read on its own); else read now (nil when it does not exist).
func (r *scopeRun) current(ctx context.Context, path string) (any, error) {
	coll := collectionOf(path)
	if live, ok := r.lists[coll]; ok && !r.unsure[path] {
		if obj, held := live[path]; held || coll != "" {
			return obj, nil // a list holds every object of its collection: not there is gone
		}
	}
	return r.read(ctx, path)
}

// readBack reads the object at path after a write to it, and keeps what it read as the
// object's last read.
func (r *scopeRun) readBack(ctx context.Context, path string) (any, error) {
	obj, err := r.read(ctx, path)
	if err != nil {
		return nil, err
	}
	r.seen(path, obj)
	return obj, nil
}

// seen keeps obj (nil: gone) as the last read of the object at path.
func (r *scopeRun) seen(path string, obj any) {
	coll := collectionOf(path)
	if live, ok := r.lists[coll]; ok {
		if obj == nil && coll != "" {
			delete(live, path)
		} else {
			live[path] = obj
		}
	}
	delete(r.unsure, path)
}

// answered is the object at path after a write that answered answer: the answer when it is
// the object showing the write (shows), else read back now.
func (r *scopeRun) answered(ctx context.Context, path string, answer json.RawMessage, callErr error, shows func(any) bool) (any, error) {
	if callErr == nil && len(answer) > 0 {
		if obj, err := decodeAny(answer); err == nil && shows(obj) {
			r.seen(path, obj)
			return obj, nil
		}
	}
	return r.readBack(ctx, path)
}

// wrote is called before a write to the object at path: it is unknown until read back (or
// answered). A bulk call's objects are known again from its answer (bulkAnswered), or its
// collection read back.
func (r *scopeRun) wrote(path string) {
	if r.unsure == nil {
		r.unsure = map[string]bool{}
	}
	r.unsure[path] = true
}
