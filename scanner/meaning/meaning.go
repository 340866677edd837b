// Package meaning says when two objects do the same thing, whoever wrote them: the one key
// by which the planner, apply and fix recognise an object that exists already (written by
// Terraform, the dashboard, a colleague or another run of sunset) as the one a plan would
// create, instead of by its ref, its id or its position.
//
// What decides what an object does is in its key; its labels are not:
//   - a ruleset rule: its phase, its action and the action's parameters (for a rate limiting
//     rule its ratelimit object too), whether it is enabled, and its expression as the one
//     printer (scanner/expr.Print) writes it, so spelling, operator symbols and redundant
//     parentheses do not count. Its id, ref, description, version and logging do not
//     decide what it does to a request;
//   - an Access application: its type, name, domain and whether the launcher shows it (for
//     a bookmark, the tile is all it does);
//   - a notification policy: its alert type, whether it is enabled, where it sends
//     (mechanisms) and what it filters on; its name is a label.
//
// Parameters compare as canonical JSON: members sorted, empty members (null, "", [], {})
// dropped, lists of plain values compared as sets, numbers by value.
package meaning

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Key is what an object does, as a comparable string: two objects of one kind do the same
// when their keys are equal.
type Key string

// Expression is a rule expression as the one printer writes it, each set's elements in one
// order (a set matches the same whatever the order it is written in); an expression that
// does not parse is kept as written, less the white space around it.
func Expression(src string) string {
	e, err := expr.Parse(src)
	if err != nil {
		return strings.TrimSpace(src)
	}
	expr.Rewrite(e, func(n expr.Node) expr.Node {
		if set, ok := n.(*expr.SetLit); ok {
			slices.SortStableFunc(set.Elems, func(a, b expr.Node) int { return strings.Compare(expr.Print(a), expr.Print(b)) })
		}
		return n
	})
	return expr.Print(e)
}

// Rule is the key of a ruleset rule in the entry point of phase.
func Rule(phase vocab.Phase, r inventory.RulesetRule) Key {
	enabled := r.Enabled == nil || *r.Enabled
	return join("rule", string(phase), string(r.Action), Canonical(r.ActionParameters),
		fmt.Sprint(enabled), Canonical(r.RateLimit), Expression(r.Expression))
}

// AccessApp is the key of an Access application.
func AccessApp(a inventory.AccessApp) Key {
	visible := a.AppLauncherVisible == nil || *a.AppLauncherVisible
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(a.Domain)), "/")
	return join("access-app", a.Type, strings.TrimSpace(a.Name), domain, fmt.Sprint(visible))
}

// NotificationPolicy is the key of a notification policy.
func NotificationPolicy(p inventory.NotificationPolicy) Key {
	enabled := p.Enabled == nil || *p.Enabled
	return join("notification-policy", p.AlertType, fmt.Sprint(enabled), Canonical(p.Mechanisms), Canonical(p.Filters))
}

// join makes a key of its parts; a part may hold any text, so each is quoted.
func join(parts ...string) Key {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%q", p)
	}
	return Key(b.String())
}

// Canonical is raw JSON in canonical form (see the package comment): "" for nothing, null or
// an empty value; raw as written when it is not JSON.
func Canonical(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	v = canonical(v)
	if v == nil {
		return ""
	}
	out, err := json.Marshal(v) // maps marshal with their keys sorted
	if err != nil {
		return string(bytes.TrimSpace(raw))
	}
	return string(out)
}

// canonical drops empty members, sorts lists of plain values and writes numbers by value;
// nil when v is empty.
func canonical(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if c := canonical(e); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		return canonicalList(x)
	case string:
		if x == "" {
			return nil
		}
		return x
	case json.Number:
		return number(x)
	}
	return v // bool, nil
}

// canonicalList is a list in canonical form: a list of plain values (strings, numbers,
// booleans) is a set in these APIs (products, phases, characteristics, methods), so it is
// sorted and without repeats; a list of objects keeps its order.
func canonicalList(x []any) any {
	out := make([]any, 0, len(x))
	plain := true
	for _, e := range x {
		c := canonical(e)
		if c == nil {
			continue
		}
		switch c.(type) {
		case map[string]any, []any:
			plain = false
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil
	}
	if plain {
		texts := make([]string, len(out))
		for i, e := range out {
			texts[i] = fmt.Sprintf("%T:%v", e, e)
		}
		sort.Sort(byText{out, texts})
		out = slices.CompactFunc(out, func(a, b any) bool { return fmt.Sprintf("%T:%v", a, a) == fmt.Sprintf("%T:%v", b, b) })
	}
	return out
}

// byText sorts values by their texts.
type byText struct {
	vals  []any
	texts []string
}

func (b byText) Len() int           { return len(b.vals) }
func (b byText) Less(i, j int) bool { return b.texts[i] < b.texts[j] }
func (b byText) Swap(i, j int) {
	b.vals[i], b.vals[j] = b.vals[j], b.vals[i]
	b.texts[i], b.texts[j] = b.texts[j], b.texts[i]
}

// number writes a JSON number by its value (60, 60.0 and 6e1 are one number).
func number(n json.Number) json.Number {
	f, ok := new(big.Float).SetString(string(n))
	if !ok {
		return n
	}
	return json.Number(f.Text('g', -1))
}
