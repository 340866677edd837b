package terraform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/zclconf/go-cty/cty"
)

// computed members of a stored rule that a configuration must not set.
var computed = map[string]bool{"id": true, "version": true, "last_updated": true}

// ruleValue converts a rule's JSON to a cty object, dropping computed members and nulls.
func ruleValue(raw json.RawMessage) (cty.Value, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return cty.NilVal, err
	}
	for k := range computed {
		delete(m, k)
	}
	return toCty(m)
}

// decodeObject decodes a JSON object keeping numbers exact.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// toCty converts decoded JSON to a cty value: objects become objects (null members dropped),
// arrays tuples, numbers exact.
func toCty(v any) (cty.Value, error) {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case json.Number:
		f, ok := new(big.Float).SetString(x.String())
		if !ok {
			return cty.NilVal, fmt.Errorf("number %s", x)
		}
		return cty.NumberVal(f), nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, 0, len(x))
		for _, e := range x {
			ev, err := toCty(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals = append(vals, ev)
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		attrs := map[string]cty.Value{}
		for k, e := range x {
			if e == nil {
				continue
			}
			ev, err := toCty(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = ev
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal, nil
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported JSON value %T", v)
}
