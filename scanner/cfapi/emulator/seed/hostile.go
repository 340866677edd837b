package seed

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Hostile is the demo account with text put before every name, description and ref, and
// compared with http.host at the end of every expression (its double quotes dropped, so the
// expression still parses): the account an attacker would make to forge terminal, CI-log or
// Markdown lines through sunset's output. Tests hold every sink to the sanitiser with it.
func Hostile(text string) (*inventory.Snapshot, error) {
	var buf bytes.Buffer
	if err := Demo().Write(&buf); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		return nil, err
	}
	data, err := json.Marshal(poison(v, text))
	if err != nil {
		return nil, err
	}
	return inventory.ReadSnapshot(bytes.NewReader(data))
}

// poison rewrites the user text of a decoded snapshot.
func poison(v any, text string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			s, ok := e.(string)
			switch {
			case ok && (k == "name" || k == "description" || k == "ref"):
				x[k] = text + s
			case ok && k == "expression" && s != "":
				x[k] = s + ` or http.host eq "` + strings.ReplaceAll(text, `"`, "") + `"`
			default:
				x[k] = poison(e, text)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = poison(e, text)
		}
	}
	return v
}
