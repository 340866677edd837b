package terraform

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
)

// v4RulesBlock is the schema of a v4 cloudflare_ruleset's rules block: which wire members
// are attributes and which nested blocks (one source of truth with the tests' checking).
var v4RulesBlock = sync.OnceValues(func() (*tfschema.Block, error) {
	s, err := tfschema.Load("4.52.8")
	if err != nil {
		return nil, err
	}
	rs := s.Resources["cloudflare_ruleset"]
	if rs == nil || rs.Blocks["rules"] == nil {
		return nil, fmt.Errorf("terraform: the v4 schema has no cloudflare_ruleset rules block")
	}
	return rs.Blocks["rules"], nil
})

// v4Reshape turns the wire members whose v4 shape differs into v4's shape, by path from
// the rule: the skip action's rules (ruleset ID to rule IDs) are comma-joined strings in
// v4; custom log fields, {"name": ...} objects on the wire, are the names; header
// modifications, keyed by header name on the wire, are blocks naming the header.
var v4Reshape = map[string]func(any) (any, error){
	"action_parameters.rules":   joinRuleIDs,
	"action_parameters.headers": headerBlocks,

	"action_parameters.cookie_fields":   fieldNames,
	"action_parameters.request_fields":  fieldNames,
	"action_parameters.response_fields": fieldNames,
}

// rulesV4 writes one rules block per rule, in provider v4's syntax.
func rulesV4(body *hclwrite.Body, rules []json.RawMessage) error {
	sch, err := v4RulesBlock()
	if err != nil {
		return err
	}
	for i, raw := range rules {
		m, err := decodeObject(raw)
		if err != nil {
			return fmt.Errorf("rule %d: %w", i+1, err)
		}
		for k := range computed {
			delete(m, k)
		}
		if err := writeV4(body.AppendNewBlock("rules", nil).Body(), sch, m, ""); err != nil {
			return fmt.Errorf("rule %d: %w", i+1, err)
		}
	}
	return nil
}

// writeV4 writes a wire object into a block body: members the schema has as attributes
// first, then those it has as nested blocks (an object one block, a list of objects one
// block per element), each group in name order.
func writeV4(body *hclwrite.Body, sch *tfschema.Block, m map[string]any, path string) error {
	var blocks []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, p := m[k], path+k
		if f := v4Reshape[p]; f != nil {
			var err error
			if v, err = f(v); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		m[k] = v
		if v == nil {
			continue
		}
		if a, ok := sch.Attributes[k]; ok && a.Settable() {
			if err := setV4Attr(body, k, a, v, p); err != nil {
				return err
			}
			continue
		}
		if _, ok := sch.Blocks[k]; !ok {
			return fmt.Errorf("%s: provider v4 has no place for it", p)
		}
		blocks = append(blocks, k)
	}
	for _, k := range blocks {
		var elems []any
		switch v := m[k].(type) {
		case map[string]any:
			elems = []any{v}
		case []any:
			elems = v
		}
		for _, e := range elems {
			obj, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%s%s: not an object, v4 has a block there", path, k)
			}
			if err := writeV4(body.AppendNewBlock(k, nil).Body(), sch.Blocks[k], obj, path+k+"."); err != nil {
				return err
			}
		}
		if len(elems) == 0 {
			if _, ok := m[k].([]any); !ok {
				return fmt.Errorf("%s%s: not an object, v4 has a block there", path, k)
			}
		}
	}
	return nil
}

// setV4Attr writes a plain attribute, its value checked against v4's type.
func setV4Attr(body *hclwrite.Body, name string, a *tfschema.Attr, v any, path string) error {
	val, err := toCty(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ty, err := ctyjson.UnmarshalType(a.Type)
	if err != nil {
		return fmt.Errorf("%s: v4 schema type: %w", path, err)
	}
	if _, err := convert.Convert(val, ty); err != nil {
		return fmt.Errorf("%s: %s does not fit provider v4's %s", path, val.Type().FriendlyName(), ty.FriendlyName())
	}
	body.SetAttributeValue(name, val)
	return nil
}

// joinRuleIDs: the skip action's rules, ruleset ID to a list of rule IDs on the wire, are
// ruleset ID to the rule IDs comma-joined in v4.
func joinRuleIDs(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object of ruleset IDs")
	}
	out := map[string]any{}
	for id, list := range m {
		ids, ok := list.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: not a list of rule IDs", id)
		}
		parts := make([]string, 0, len(ids))
		for _, r := range ids {
			s, ok := r.(string)
			if !ok {
				return nil, fmt.Errorf("%s: not a list of rule IDs", id)
			}
			parts = append(parts, s)
		}
		out[id] = strings.Join(parts, ",")
	}
	return out, nil
}

// headerBlocks: header modifications, header name to modification on the wire, are one
// block per header in v4, naming it, in header name order.
func headerBlocks(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object of header names")
	}
	out := make([]any, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		mod, ok := m[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", name)
		}
		h := map[string]any{"name": name}
		for k, e := range mod {
			h[k] = e
		}
		out = append(out, h)
	}
	return out, nil
}

// fieldNames: custom log fields, a list of {"name": ...} on the wire, are the names in v4.
func fieldNames(v any) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list of fields")
	}
	out := make([]any, 0, len(list))
	for _, e := range list {
		f, ok := e.(map[string]any)
		if !ok || len(f) != 1 || f["name"] == nil {
			return nil, fmt.Errorf("a field other than {\"name\": ...}")
		}
		out = append(out, f["name"])
	}
	return out, nil
}
