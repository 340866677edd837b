package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// uniqueStable drops repeated strings, keeping the first of each in place.
func uniqueStable(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// uniqueSorted is a sorted copy of xs without repeats.
func uniqueSorted(xs []string) []string {
	if len(xs) == 0 {
		return xs
	}
	out := append([]string(nil), xs...)
	sort.Strings(out)
	w := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[w-1] {
			out[w] = out[i]
			w++
		}
	}
	return out[:w]
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func contains(xs []string, v string) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// mustJSON encodes v for a step body; the values encoded are built here and always encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("migrate: encoding %T: %v", v, err))
	}
	return b
}

// compactJSON renders a raw JSON value without insignificant whitespace, so text built from
// it does not depend on how the snapshot was indented.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return strings.TrimSpace(string(raw))
	}
	return b.String()
}

func zonePath(zoneID string, segs ...string) string {
	return "/zones/" + zoneID + "/" + strings.Join(segs, "/")
}

func accountPath(accountID string, segs ...string) string {
	return "/accounts/" + accountID + "/" + strings.Join(segs, "/")
}

func entrypointPath(zoneID string, phase vocab.Phase) string {
	return zonePath(zoneID, "rulesets", "phases", string(phase), "entrypoint")
}

// named renders an object for titles: `"description" (id)` or the id.
func named(desc, id string) string {
	switch {
	case desc != "" && id != "":
		return fmt.Sprintf("%q (%s)", desc, id)
	case desc != "":
		return fmt.Sprintf("%q", desc)
	}
	return id
}

func quoteOr(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return fmt.Sprintf("%q", s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func boolPtr(b bool) *bool { return &b }
