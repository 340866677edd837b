package apply

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// volatile members change on every write or read and say nothing of what an object does.
var volatile = map[string]bool{
	"modified_on": true, "created_on": true, "last_updated": true, "version": true, "meta": true,
	"modified_at": true, "created_at": true, "updated_at": true, "last_modified": true,
}

// decodeAny decodes JSON into maps, slices and scalars (numbers as json.Number).
func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// toAny renders a value as decodeAny would read its JSON.
func toAny(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	x, _ := decodeAny(raw)
	return x
}

// differs returns the first member path where live and want disagree, comparing only the
// members both have (an API adds and drops members between versions) and none of the
// volatile ones; arrays compare whole. "" means they agree.
func differs(live, want any, at string) string {
	lm, lok := live.(map[string]any)
	wm, wok := want.(map[string]any)
	if lok && wok {
		keys := make([]string, 0, len(wm))
		for k := range wm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			lv, ok := lm[k]
			if !ok || volatile[k] {
				continue
			}
			if d := differs(lv, wm[k], join(at, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if !equalJSON(live, want) && (!isZero(live) || !isZero(want)) {
		return at
	}
	return ""
}

// contains reports whether live has every member of want with its value (a member live
// lacks counts as its zero value: APIs omit empty members).
func contains(live, want any) bool {
	wm, wok := want.(map[string]any)
	if !wok {
		return equalJSON(live, want) || (isZero(live) && isZero(want))
	}
	lm, _ := live.(map[string]any)
	for k, wv := range wm {
		lv, ok := lm[k]
		if !ok {
			if isZero(wv) {
				continue
			}
			return false
		}
		if !contains(lv, wv) {
			return false
		}
	}
	return true
}

// containsWhole is contains with the body's members compared whole, for writes that replace
// them (migrate.KindSpec.Whole).
func containsWhole(live, want any) bool {
	wm, wok := want.(map[string]any)
	lm, lok := live.(map[string]any)
	if !wok || !lok {
		return contains(live, want)
	}
	for k, wv := range wm {
		if !contains(lm[k], wv) || !contains(wv, lm[k]) {
			return false
		}
	}
	return true
}

// project keeps of live the members want names (recursively): what a write of want
// overwrites.
func project(live, want any) any {
	wm, wok := want.(map[string]any)
	lm, lok := live.(map[string]any)
	if !wok || !lok {
		return live
	}
	out := map[string]any{}
	for k, wv := range wm {
		if lv, ok := lm[k]; ok {
			out[k] = project(lv, wv)
		}
	}
	return out
}

// overlay writes the members of body over base (recursively), as a successful write does.
func overlay(base, body any) any {
	bm, bok := body.(map[string]any)
	om, ook := base.(map[string]any)
	if !bok || !ook {
		return body
	}
	out := make(map[string]any, len(om))
	for k, v := range om {
		out[k] = v
	}
	for k, v := range bm {
		out[k] = overlay(om[k], v)
	}
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// sameRule reports whether a rule read from the API is want, on what a plan sets (the
// service adds id, version, last_updated, and a ref when none is given).
func sameRule(got, want inventory.RulesetRule) bool {
	return got.Action == want.Action && got.Expression == want.Expression && got.Description == want.Description &&
		(want.Ref == "" || got.Ref == want.Ref) && enabled(got) == enabled(want) &&
		sameRaw(got.ActionParameters, want.ActionParameters) && sameRaw(got.RateLimit, want.RateLimit)
}

func enabled(r inventory.RulesetRule) bool { return r.Enabled == nil || *r.Enabled }

func sameRaw(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	x, errA := decodeAny(a)
	y, errB := decodeAny(b)
	return errA == nil && errB == nil && equalJSON(x, y)
}

// targetRules decodes a target's rules.
func targetRules(t migrate.Target) ([]inventory.RulesetRule, error) {
	out := make([]inventory.RulesetRule, 0, len(t.Rules))
	for i, raw := range t.Rules {
		var r inventory.RulesetRule
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("target %s rule %d: %w", t.Phase, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// holdsExactly checks that an entry point's rules are want, in order.
func holdsExactly(got, want []inventory.RulesetRule) error {
	if len(got) != len(want) {
		return fmt.Errorf("holds %d rules, the plan wants %d", len(got), len(want))
	}
	for i := range want {
		if !sameRule(got[i], want[i]) {
			return fmt.Errorf("rule %d is %s %q, the plan wants %s %q", i+1, got[i].Action, got[i].Description, want[i].Action, want[i].Description)
		}
	}
	return nil
}

// topLevel is body with its members' values emptied: projecting on it keeps whole values.
func topLevel(body any) any {
	m, ok := body.(map[string]any)
	if !ok {
		return body
	}
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}
