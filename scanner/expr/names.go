package expr

import "sort"

// Names returns the distinct names of refs, sorted; nil when there are none.
// With Fields or Functions it answers "which fields does this use?" without
// the positions.
func Names(refs []Ref) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}
