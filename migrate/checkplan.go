package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// StepError is a step (or a target) of a plan that the planner would not have written.
type StepError struct {
	Scope, ScopeID string // "zone" or "account", and its id; "plan" and "" for the whole plan
	Step           string // the step's id; "target <phase>" for a target; "" for the scope
	Why            string
}

func (e *StepError) Error() string {
	at := e.Scope
	if e.ScopeID != "" {
		at += " " + e.ScopeID
	}
	if e.Step != "" {
		at += ", " + e.Step
	}
	return at + ": " + e.Why
}

// maxStepErrors bounds how many refusals Check reports: enough to see a pattern.
const maxStepErrors = 20

// Check holds every step and target of the plan against what the planner emits for its
// kind (KindSpecs), given the snapshot the plan was built from: the kind is one sunset
// plans; the method and path are the kind's, the path names the scope's own zone or
// account and objects the snapshot holds in it; the body has the kind's shape and size and
// is what the planner writes for the object it names; dependencies are earlier steps of
// the scope; a removal depends on the check of its replacements. Anything else could make
// apply write what no plan asks for (an edited plan.json or journal), so apply refuses the
// whole plan before its first request. It returns the refusals joined (StepError), nil
// when the plan holds.
func (p *Plan) Check(snap *inventory.Snapshot) error {
	if snap == nil {
		return errors.New("plan check: no snapshot to check the plan against")
	}
	zones, accounts := map[string]*inventory.ZoneInventory{}, map[string]*inventory.AccountInventory{}
	for i := range snap.Zones {
		zones[snap.Zones[i].Zone.ID] = &snap.Zones[i]
	}
	for i := range snap.Accounts {
		accounts[snap.Accounts[i].Account.ID] = &snap.Accounts[i]
	}
	var errs []error
	add := func(e *StepError) {
		if len(errs) < maxStepErrors {
			errs = append(errs, e)
		}
	}
	seen := map[string]bool{}
	for _, a := range p.Accounts {
		sc := scopeCheck{kind: ScopeAccount, id: a.AccountID, account: accounts[a.AccountID], steps: a.Steps, add: add}
		sc.check(seen)
	}
	for _, z := range p.Zones {
		sc := scopeCheck{kind: ScopeZone, id: z.ZoneID, zone: zones[z.ZoneID], steps: z.Steps, targets: z.Targets, add: add}
		sc.check(seen)
	}
	return errors.Join(errs...)
}

// scopeCheck checks one zone's or account's steps.
type scopeCheck struct {
	kind, id string
	zone     *inventory.ZoneInventory
	account  *inventory.AccountInventory
	steps    []Step
	targets  []Target
	add      func(*StepError)
	index    map[string]int
}

func (sc *scopeCheck) refuse(step, format string, args ...any) {
	sc.add(&StepError{Scope: sc.kind, ScopeID: sc.id, Step: step, Why: fmt.Sprintf(format, args...)})
}

func (sc *scopeCheck) check(seen map[string]bool) {
	key := sc.kind + "/" + sc.id
	switch {
	case seen[key]:
		sc.refuse("", "the plan holds this %s twice", sc.kind)
		return
	case sc.zone == nil && sc.account == nil:
		sc.refuse("", "the snapshot holds no such %s: the plan was not built from this snapshot", sc.kind)
		return
	}
	seen[key] = true
	sc.checkTargets()
	sc.index = map[string]int{}
	for i, st := range sc.steps {
		if j, dup := sc.index[st.ID]; st.ID == "" || dup && (!st.Manual || !sc.steps[j].Manual) {
			sc.refuse(st.ID, "step id %q is empty or not unique in its %s", st.ID, sc.kind)
			continue
		} else if dup {
			continue // manual steps of one id (never sent): the first stands for both
		}
		sc.index[st.ID] = i
		sc.checkStep(i, st)
	}
}

// checkStep holds one step against its kind's spec.
func (sc *scopeCheck) checkStep(i int, st Step) {
	spec := KindSpecs[st.Kind]
	if spec == nil {
		sc.refuse(st.ID, "kind %q is not one sunset plans", st.Kind)
		return
	}
	for _, d := range st.DependsOn {
		if j, ok := sc.index[d]; !ok || j >= i {
			sc.refuse(st.ID, "depends on %q, which is not an earlier step of this %s", d, sc.kind)
		}
	}
	switch {
	case spec.Op == OpManual:
		if !st.Manual {
			sc.refuse(st.ID, "kind %s is a manual step: apply never sends it", st.Kind)
		}
		return
	case st.Manual:
		return // held: never sent, and so are the steps that depend on it
	case spec.Scope != sc.kind:
		sc.refuse(st.ID, "kind %s belongs to a %s, not a %s", st.Kind, spec.Scope, sc.kind)
		return
	}
	if want := changeOf[spec.Op]; st.Change != want {
		sc.refuse(st.ID, "change %q: kind %s makes a %q", st.Change, st.Kind, want)
		return
	}
	if st.Method != spec.Method {
		sc.refuse(st.ID, "%s %s: kind %s sends %s %s", st.Method, st.Path, st.Kind, spec.Method, spec.Path)
		return
	}
	params, ok := matchPath(spec.Path, st.Path)
	if !ok {
		sc.refuse(st.ID, "%s %s: kind %s sends %s %s", st.Method, st.Path, st.Kind, spec.Method, spec.Path)
		return
	}
	obj, why := sc.resolve(spec, params)
	if why != "" {
		sc.refuse(st.ID, "%s %s: %s", st.Method, st.Path, why)
		return
	}
	if why := sc.checkBody(spec, st, params, obj); why != "" {
		sc.refuse(st.ID, "%s", why)
		return
	}
	if spec.Removes {
		if why := sc.replaced(spec, st, obj); why != "" {
			sc.refuse(st.ID, "%s", why)
		}
	}
	if len(spec.ReplacedBy) > 0 && !sc.reaches(st, func(dep Step) bool { return slices.Contains(spec.ReplacedBy, dep.Kind) && !dep.Manual }) {
		sc.refuse(st.ID, "%s retires an old object but does not depend on the step that puts its replacement in place (%s)", st.Kind, vocab.Join(spec.ReplacedBy, " or "))
	}
}

// changeOf is the change each op makes, as the plan's summary counts it.
var changeOf = map[Op]Change{
	OpVerify: ChangeVerify, OpVerifyObject: ChangeVerify, OpCreateEntrypoint: ChangeCreate, OpAddRule: ChangeCreate,
	OpCreate: ChangeCreate, OpUpdate: ChangeUpdate, OpDelete: ChangeDelete,
}

// resolve checks the path's parameters: the scope's own id, the snapshot's entry point,
// objects the snapshot holds in the scope. It returns the object the path names.
func (sc *scopeCheck) resolve(spec *KindSpec, params map[string]string) (any, string) {
	var obj any
	names := slices.Sorted(maps.Keys(params))
	// The scope's own id first: naming another zone says more than its objects' absence.
	slices.SortStableFunc(names, func(a, b string) int { return cmpBool(b == "zone" || b == "account", a == "zone" || a == "account") })
	for _, name := range names {
		v := params[name]
		switch name {
		case "zone", "account":
			if v != sc.id {
				return nil, fmt.Sprintf("names %s %s, not this %s (%s)", name, v, sc.kind, sc.id)
			}
		case "ruleset":
			rs, ok := sc.zone.Ruleset(spec.Phase)
			if !ok || rs.ID != v {
				return nil, fmt.Sprintf("ruleset %s is not the zone's %s entry point in the snapshot", v, spec.Phase)
			}
		default:
			find := pathObjects[name]
			if find == nil {
				return nil, "unknown path parameter " + name
			}
			o, ok := find(sc.zone, sc.account, v)
			if !ok {
				return nil, fmt.Sprintf("the snapshot holds no %s %s in this %s", strings.ReplaceAll(name, "_", " "), v, sc.kind)
			}
			obj = o
		}
	}
	return obj, ""
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// pathObjects find the object a path parameter names in the scope's inventory.
var pathObjects = map[string]func(*inventory.ZoneInventory, *inventory.AccountInventory, string) (any, bool){
	"firewall_rule": func(z *inventory.ZoneInventory, _ *inventory.AccountInventory, id string) (any, bool) {
		return findByID(z, func(z *inventory.ZoneInventory) []inventory.FirewallRule { return z.FirewallRules }, id, func(r inventory.FirewallRule) string { return r.ID })
	},
	"filter": func(z *inventory.ZoneInventory, _ *inventory.AccountInventory, id string) (any, bool) {
		if f, ok := findByID(z, func(z *inventory.ZoneInventory) []inventory.Filter { return z.Filters }, id, func(f inventory.Filter) string { return f.ID }); ok {
			return f, true
		}
		// A firewall rule carries its filter: the planner deletes it even when the
		// filters list was not read.
		return findByID(z, func(z *inventory.ZoneInventory) []inventory.Filter { return ruleFilters(z) }, id, func(f inventory.Filter) string { return f.ID })
	},
	"rate_limit": func(z *inventory.ZoneInventory, _ *inventory.AccountInventory, id string) (any, bool) {
		return findByID(z, func(z *inventory.ZoneInventory) []inventory.RateLimit { return z.RateLimits }, id, func(r inventory.RateLimit) string { return r.ID })
	},
	"waf_override": func(z *inventory.ZoneInventory, _ *inventory.AccountInventory, id string) (any, bool) {
		return findByID(z, func(z *inventory.ZoneInventory) []inventory.WAFOverride { return z.WAFOverrides }, id, func(o inventory.WAFOverride) string { return o.ID })
	},
	"dns_record": func(z *inventory.ZoneInventory, _ *inventory.AccountInventory, id string) (any, bool) {
		return findByID(z, func(z *inventory.ZoneInventory) []inventory.DNSRecord { return z.DNSRecords }, id, func(r inventory.DNSRecord) string { return r.ID })
	},
	"pool": func(_ *inventory.ZoneInventory, a *inventory.AccountInventory, id string) (any, bool) {
		return findByID(a, func(a *inventory.AccountInventory) []inventory.LoadBalancerPool { return a.LoadBalancerPools }, id, func(p inventory.LoadBalancerPool) string { return p.ID })
	},
	"bookmark": func(_ *inventory.ZoneInventory, a *inventory.AccountInventory, id string) (any, bool) {
		return findByID(a, func(a *inventory.AccountInventory) []inventory.AccessBookmark { return a.AccessBookmarks }, id, func(b inventory.AccessBookmark) string { return b.ID })
	},
}

// ruleFilters are the filters the zone's firewall rules carry.
func ruleFilters(z *inventory.ZoneInventory) []inventory.Filter {
	out := make([]inventory.Filter, 0, len(z.FirewallRules))
	for _, fr := range z.FirewallRules {
		out = append(out, fr.Filter)
	}
	return out
}

// findByID finds the item with the given id in a list of the scope (none when the scope
// is not of the list's kind).
func findByID[S any, T any](scope *S, list func(*S) []T, id string, idOf func(T) string) (any, bool) {
	if scope == nil {
		return nil, false
	}
	for _, x := range list(scope) {
		if idOf(x) == id {
			return x, true
		}
	}
	return nil, false
}

// checkBody holds a body to the kind's size and to what the planner writes.
func (sc *scopeCheck) checkBody(spec *KindSpec, st Step, params map[string]string, obj any) string {
	body := bytes.TrimSpace(st.Body)
	if spec.Body == nil || spec.MaxBody == 0 {
		if len(body) > 0 && string(body) != "null" {
			return fmt.Sprintf("a %s step sends no body; this one has %d bytes", st.Kind, len(body))
		}
		return ""
	}
	if len(body) > spec.MaxBody {
		return fmt.Sprintf("the body is %d bytes; the planner writes at most %d for %s", len(body), spec.MaxBody, st.Kind)
	}
	err := spec.Body(bodyCheck{step: st, body: body, obj: obj, zone: sc.zone, account: sc.account, target: sc.target(spec.Phase), params: params})
	if err != nil {
		return "body: " + err.Error()
	}
	return ""
}

// target is the scope's target of a phase, nil when the plan has none.
func (sc *scopeCheck) target(phase vocab.Phase) *Target {
	for i := range sc.targets {
		if sc.targets[i].Phase == phase {
			return &sc.targets[i]
		}
	}
	return nil
}

// replaced checks that a removal runs only after the check of its replacements: it
// depends, directly or not, on the verify step of its phase's entry point. A filter goes
// only once every firewall rule the snapshot has on it goes first.
func (sc *scopeCheck) replaced(spec *KindSpec, st Step, obj any) string {
	if f, ok := obj.(inventory.Filter); ok {
		return sc.filterUnused(st, f)
	}
	if sc.dependsOnVerify(st, spec.Phase) || inactive(obj) {
		return ""
	}
	return fmt.Sprintf("%s removes an old protection but does not depend on the check of its replacements (%s entry point)", st.Kind, spec.Phase)
}

// inactive reports whether an old object does nothing already (paused or disabled): taking
// it away removes no protection, so it needs no check of a replacement.
func inactive(obj any) bool {
	switch o := obj.(type) {
	case inventory.FirewallRule:
		return o.Paused
	case inventory.RateLimit:
		return o.Disabled
	case inventory.WAFOverride:
		return o.Paused
	}
	return false
}

// dependsOnVerify reports whether st depends, directly or not, on the verify step of phase.
func (sc *scopeCheck) dependsOnVerify(st Step, phase vocab.Phase) bool {
	return sc.reaches(st, func(dep Step) bool {
		s := KindSpecs[dep.Kind]
		return s != nil && s.Op == OpVerify && s.Phase == phase && !dep.Manual
	})
}

// filterUnused checks that every firewall rule on the filter is deleted before it.
func (sc *scopeCheck) filterUnused(st Step, f inventory.Filter) string {
	for _, fr := range sc.zone.FirewallRules {
		if fr.Filter.ID != f.ID {
			continue
		}
		del := string(KindFirewallRuleDelete) + ":" + fr.ID
		if !sc.reaches(st, func(dep Step) bool { return dep.ID == del && dep.Kind == KindFirewallRuleDelete && !dep.Manual }) {
			return fmt.Sprintf("filter %s is used by firewall rule %s, which this plan does not delete before it", f.ID, fr.ID)
		}
	}
	return ""
}

// reaches reports whether st depends, directly or not, on a step that is accepts.
func (sc *scopeCheck) reaches(st Step, is func(Step) bool) bool {
	found := false
	EachDependency(sc.steps, sc.index, st, func(dep Step) bool {
		found = is(dep)
		return !found
	})
	return found
}

// EachDependency calls visit once on each step st depends on, directly or not, nearest
// first (steps found by id in index, positions in steps), until visit returns false.
func EachDependency(steps []Step, index map[string]int, st Step, visit func(Step) bool) {
	seen := map[string]bool{}
	queue := append([]string(nil), st.DependsOn...)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		i, ok := index[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		if !visit(steps[i]) {
			return
		}
		queue = append(queue, steps[i].DependsOn...)
	}
}
