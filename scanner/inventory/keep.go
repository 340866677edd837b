package inventory

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Extra holds the JSON members of an API object that sunset does not model, so that a
// decode followed by an encode loses nothing the API sent.
type Extra map[string]json.RawMessage

// knownKeys caches, per struct type, the JSON member names its fields claim.
var knownKeys sync.Map // reflect.Type -> map[string]bool

func keysOf(t reflect.Type) map[string]bool {
	if v, ok := knownKeys.Load(t); ok {
		return v.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	knownKeys.Store(t, keys)
	return keys
}

// decodeKeeping decodes data into known (a pointer to a struct without custom JSON methods)
// and returns the members that no field of that struct claims.
func decodeKeeping(data []byte, known any) (Extra, error) {
	if err := json.Unmarshal(data, known); err != nil {
		return nil, err
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, nil
	}
	keys := keysOf(reflect.TypeOf(known).Elem())
	if !hasUnknownKey(data, keys) {
		return nil, nil // the common case on large lists: no second pass over the object
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	var extra Extra
	for k, v := range all {
		if keys[k] {
			continue
		}
		if extra == nil {
			extra = Extra{}
		}
		extra[k] = v
	}
	return extra, nil
}

// hasUnknownKey reports whether the JSON object in data (already known to be valid) has a
// member that keys does not hold. It only walks the top level: strings are skipped, nested
// values are stepped over by bracket depth. A key with an escape sequence counts as unknown,
// which sends the caller down the exact (slower) path.
func hasUnknownKey(data []byte, keys map[string]bool) bool {
	depth := 0
	expectKey := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			depth++
			expectKey = depth == 1 && c == '{'
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			start := i + 1
			escaped := false
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					escaped = true
					i++
				}
			}
			if expectKey {
				if escaped || !keys[string(data[start:i])] {
					return true
				}
				expectKey = false
			}
		}
	}
	return false
}

// encodeKeeping encodes known (a struct without custom JSON methods) and merges extra into
// it; members of known win over extra. Keys come out sorted, so output is deterministic.
func encodeKeeping(known any, extra Extra) ([]byte, error) {
	data, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := all[k]; !ok {
			all[k] = v
		}
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(all[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
