package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/meaning"
)

// The account objects a plan creates (Access applications, notification policies) are found
// by what they do (migrate.KindSpec.Same), before and after each create: one someone else
// made stands for the plan's, and of two copies two runs made at once the earlier stays.

// listedObject is an object of a collection as the API lists it: its id, when it was made,
// what it does, and its JSON.
type listedObject struct {
	id, made string
	key      meaning.Key
	raw      json.RawMessage
}

// sameObjects lists the collection at path (every page) and returns the objects that do
// what body does (see matching).
func (r *scopeRun) sameObjects(ctx context.Context, spec *migrate.KindSpec, path string, body json.RawMessage) ([]listedObject, error) {
	list, err := cfapi.ListAt[json.RawMessage](ctx, r.opts.Client, path)
	if err != nil {
		return nil, err
	}
	return matching(spec, list, body)
}

// matching are the objects of a collection's list that do what body does (for kind spec),
// earliest first: by when they were made (created_at, or created), then by id, the same
// order on every machine.
func matching(spec *migrate.KindSpec, list []json.RawMessage, body json.RawMessage) ([]listedObject, error) {
	want, err := spec.Same(body)
	if err != nil {
		return nil, fmt.Errorf("%s: body: %w", spec.Kind, err)
	}
	var out []listedObject
	for _, raw := range list {
		k, err := spec.Same(raw)
		if err != nil || k != want {
			continue
		}
		var meta struct {
			ID        string `json:"id"`
			CreatedAt string `json:"created_at"`
			Created   string `json:"created"`
		}
		_ = json.Unmarshal(raw, &meta)
		out = append(out, listedObject{id: meta.ID, made: meta.CreatedAt + meta.Created, key: k, raw: raw})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].made != out[j].made {
			return out[i].made < out[j].made
		}
		return out[i].id < out[j].id
	})
	return out, nil
}

// ours reports whether a listed object is one sunset wrote for st: it holds every member
// of the step's body as the body has it (a copy another run of the plan made, or this
// run's), not merely what it does.
func ours(o listedObject, st migrate.Step) bool {
	live, err1 := decodeAny(o.raw)
	body, err2 := decodeAny(st.Body)
	return err1 == nil && err2 == nil && contains(live, body)
}

// createObject POSTs a new object (an Access application, a notification policy) unless one
// that does the same is there already (found before the POST: someone else's stands for
// it, and a rollback leaves it). After the POST the collection is read again: of two copies
// a race with another run left, the earliest is kept and the later copies sunset wrote are
// deleted, this run's own included.
func (r *scopeRun) createObject(ctx context.Context, st migrate.Step) (map[string]string, string, error) {
	spec := migrate.SpecOf(st)
	found, err := r.sameObjects(ctx, spec, st.Path, st.Body)
	if err != nil {
		return nil, "", err
	}
	if len(found) > 0 {
		return r.finish(st, r.standing(st, found[0]), true)
	}
	if err := r.begin(st, nil); err != nil {
		return nil, "", err
	}
	var made struct {
		ID string `json:"id"`
	}
	callErr := r.call(ctx, st.Method, st.Path, st.Body, &made)
	if found, err = r.sameObjects(ctx, spec, st.Path, st.Body); err != nil {
		return nil, "", err
	}
	if len(found) == 0 {
		if callErr != nil {
			return nil, "", callErr
		}
		return nil, "", unsafe("nothing under %s does what the POST made", st.Path)
	}
	kept, err := r.keepEarliest(ctx, st, found, made.ID)
	if err != nil {
		return nil, "", err
	}
	if kept.id == made.ID {
		return r.finish(st, map[string]string{"id": made.ID}, false)
	}
	return r.finish(st, r.standing(st, kept), false)
}

// standing is what the journal records of a step an existing object stands for: its id
// when sunset wrote it (a rollback deletes it), else standing_id (a rollback keeps it),
// named in the scope's notices.
func (r *scopeRun) standing(st migrate.Step, o listedObject) map[string]string {
	if ours(o, st) {
		return map[string]string{"id": o.id}
	}
	r.notice("step %s: %s/%s, written by someone else, does what the plan would create: not created again", st.ID, st.Path, o.id)
	return map[string]string{"standing_id": o.id}
}

// keepEarliest deletes the copies after the earliest that sunset wrote (a race of two runs
// left them); a later copy someone else wrote is named, not deleted. It returns the copy kept.
func (r *scopeRun) keepEarliest(ctx context.Context, st migrate.Step, found []listedObject, mine string) (listedObject, error) {
	for _, o := range found[1:] {
		if o.id != mine && !ours(o, st) {
			r.notice("%s/%s, written by someone else, does what %s made: both are there; remove one", st.Path, o.id, st.ID)
			continue
		}
		if err := r.call(ctx, http.MethodDelete, st.Path+"/"+o.id, nil, nil); err != nil && !cfapi.IsNotFound(err) {
			return listedObject{}, err
		}
		r.notice("removed %s/%s: a second copy of what %s creates, made by another run at the same moment", st.Path, o.id, st.ID)
	}
	return found[0], nil
}

// replacementThere is the read right before a step that retires an old account object (its
// kind's ReplacedBy): the object its replacement step created or checked is still there,
// doing what the plan wants, or the step is not sent.
func (r *scopeRun) replacementThere(ctx context.Context, st migrate.Step) error {
	spec := migrate.SpecOf(st)
	for _, id := range st.DependsOn {
		i, ok := r.sc.index[id]
		if !ok || !slices.Contains(spec.ReplacedBy, r.sc.steps[i].Kind) {
			continue
		}
		dep := r.sc.steps[i]
		found, err := r.sameObjects(ctx, migrate.SpecOf(dep), dep.Path, dep.Body)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return unsafe("replacement not in place before %s: nothing under %s does what %s put there", st.ID, dep.Path, dep.ID)
		}
	}
	return nil
}

// checkObject is a check step of an account object: the collection holds one that does
// what the step's body describes.
func (r *scopeRun) checkObject(ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error) {
	found, err := r.sameObjects(ctx, spec, st.Path, st.Body)
	if err != nil {
		return nil, "", err
	}
	if len(found) == 0 {
		return nil, "", unsafe("nothing under %s does what %s describes", st.Path, st.ID)
	}
	if _, _, err := r.finish(st, map[string]string{"standing_id": found[0].id}, false); err != nil {
		return nil, "", err
	}
	return nil, OutcomeChecked, nil
}
