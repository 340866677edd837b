package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// resource is a plain CRUD collection of one object type held in a zone or an account, for
// the endpoints whose behaviour the spec does not shape beyond "store and return".
type resource[T any] struct {
	kind  string                        // for messages, e.g. "health check"
	param string                        // the item path parameter, e.g. "healthcheck_id"
	items func(c *call) *[]*T           // the collection the request addresses
	getID func(*T) string               // the object's id
	setID func(*T, string)              // sets the id of a created object
	lim   pageLimits                    // list page sizes
	check func(c *call, x *T) *APIError // validation of a created or changed object (optional)
	// created runs on a new object before it is stored (timestamps, defaults; optional).
	created func(c *call, x *T)
	// quota returns the number of objects the collection may hold (optional, 0 = none).
	quota func(c *call) int
	// match filters list results by query parameters (optional).
	match func(c *call, x *T) bool
	// view renders a stored object as the API answers it, e.g. with members the API's
	// description requires synthesized (optional; it must not change x's shared parts).
	view func(c *call, x T) T
}

// show is the object as answered.
func (res resource[T]) show(c *call, x T) T {
	if res.view != nil {
		return res.view(c, x)
	}
	return x
}

func (res resource[T]) find(c *call, id string) (int, *T) {
	for i, x := range *res.items(c) {
		if res.getID(x) == id {
			return i, x
		}
	}
	return -1, nil
}

func (res resource[T]) list(c *call) *reply {
	var out []*T
	for _, x := range *res.items(c) {
		if res.match != nil && !res.match(c, x) {
			continue
		}
		out = append(out, x)
	}
	return renderPage(c, out, res.lim, func(x *T) T { return res.show(c, *x) })
}

func (res resource[T]) get(c *call) *reply {
	_, x := res.find(c, c.params[res.param])
	if x == nil {
		return notFound(res.kind, c.params[res.param])
	}
	return ok(deepCopy(res.show(c, *x)))
}

// decodeObject reads a JSON object body into a fresh T.
func (res resource[T]) decodeObject(c *call) (*T, *reply) {
	if b := bytes.TrimSpace(c.body); len(b) > 0 && b[0] != '{' {
		return nil, fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: this endpoint expects a JSON object")
	}
	x := new(T)
	if rep := c.decode(x); rep != nil {
		return nil, rep
	}
	return x, nil
}

func (res resource[T]) checked(c *call, x *T) *reply {
	if res.check != nil {
		if e := res.check(c, x); e != nil {
			return failErrors(http.StatusBadRequest, *e)
		}
	}
	return nil
}

func (res resource[T]) create(c *call) *reply {
	x, rep := res.decodeObject(c)
	if rep != nil {
		return rep
	}
	return res.store(c, x, c.st.newID(res.kind))
}

// createAt creates an object at the id the path names (access bookmarks are created that way).
func (res resource[T]) createAt(c *call) *reply {
	id := c.params[res.param]
	if _, old := res.find(c, id); old != nil {
		return fail(http.StatusConflict, CodeInvalid, "%s %q already exists", res.kind, id)
	}
	x, rep := res.decodeObject(c)
	if rep != nil {
		return rep
	}
	return res.store(c, x, id)
}

func (res resource[T]) store(c *call, x *T, id string) *reply {
	res.setID(x, id)
	if rep := res.checked(c, x); rep != nil {
		return rep
	}
	if res.quota != nil {
		if q := res.quota(c); q > 0 && len(*res.items(c)) >= q {
			return fail(http.StatusBadRequest, CodeQuotaExceeded, "%s quota exceeded: the %s plan allows %d", res.kind, c.planName(), q)
		}
	}
	if res.created != nil {
		res.created(c, x)
	}
	*res.items(c) = append(*res.items(c), x)
	return ok(deepCopy(res.show(c, *x)))
}

// replace is PUT: the body is the whole object; the id stays.
func (res resource[T]) replace(c *call) *reply {
	id := c.params[res.param]
	i, old := res.find(c, id)
	if old == nil {
		return notFound(res.kind, id)
	}
	x, rep := res.decodeObject(c)
	if rep != nil {
		return rep
	}
	res.setID(x, id)
	if rep := res.checked(c, x); rep != nil {
		return rep
	}
	(*res.items(c))[i] = x
	return ok(deepCopy(res.show(c, *x)))
}

// patch is PATCH: the members sent replace the stored ones; the id stays.
func (res resource[T]) patch(c *call) *reply {
	id := c.params[res.param]
	i, old := res.find(c, id)
	if old == nil {
		return notFound(res.kind, id)
	}
	var changes map[string]json.RawMessage
	if rep := c.decode(&changes); rep != nil {
		return rep
	}
	merged, err := mergeJSON(*old, changes)
	if err != nil {
		return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
	}
	res.setID(&merged, id)
	if rep := res.checked(c, &merged); rep != nil {
		return rep
	}
	(*res.items(c))[i] = &merged
	return ok(deepCopy(res.show(c, merged)))
}

func (res resource[T]) remove(c *call) *reply {
	id := c.params[res.param]
	i, old := res.find(c, id)
	if old == nil {
		return notFound(res.kind, id)
	}
	items := res.items(c)
	*items = append((*items)[:i], (*items)[i+1:]...)
	return ok(map[string]string{"id": id})
}

// mergeJSON overlays the top-level members of changes on x's encoding.
func mergeJSON[T any](x T, changes map[string]json.RawMessage) (T, error) {
	var out T
	b, err := json.Marshal(x)
	if err != nil {
		return out, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return out, err
	}
	if all == nil {
		all = map[string]json.RawMessage{}
	}
	for k, v := range changes {
		all[k] = v
	}
	b, err = json.Marshal(all)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, err
	}
	return out, nil
}

// planName is the zone's plan for messages ("" outside a zone).
func (c *call) planName() string {
	if c.zone == nil {
		return "account's"
	}
	return c.zone.plan()
}
