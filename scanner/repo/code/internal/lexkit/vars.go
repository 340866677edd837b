package lexkit

// Vars remembers the values of variables assigned once, scope by scope, so that a later
// concatenation or interpolation can use the value instead of a hole.
type Vars struct {
	scopes []map[string]varValue
}

type varValue struct {
	value string
	names []string
	ok    bool
}

// Push opens a scope (a function body).
func (v *Vars) Push() {
	if len(v.scopes) == 0 {
		v.scopes = append(v.scopes, nil) // the file's own scope
	}
	v.scopes = append(v.scopes, nil)
}

// Pop closes the innermost scope; the file's scope is never closed.
func (v *Vars) Pop() {
	if len(v.scopes) > 1 {
		v.scopes = v.scopes[:len(v.scopes)-1]
	}
}

// Set records that name was assigned value (with its hole names) in the innermost scope.
// known is false for a value the reader could not fold. A second assignment in the same
// scope makes the variable unknown.
func (v *Vars) Set(name, value string, names []string, known bool) {
	if name == "" {
		return
	}
	if len(v.scopes) == 0 {
		v.scopes = append(v.scopes, nil)
	}
	i := len(v.scopes) - 1
	if v.scopes[i] == nil {
		v.scopes[i] = map[string]varValue{}
	}
	if _, seen := v.scopes[i][name]; seen {
		known = false
	}
	v.scopes[i][name] = varValue{value: value, names: names, ok: known}
}

// Get returns the value name was assigned once, looking in the innermost scope only, or
// in the outer ones as well when outer is true.
func (v *Vars) Get(name string, outer bool) (string, []string, bool) {
	for i := len(v.scopes) - 1; i >= 0; i-- {
		if val, seen := v.scopes[i][name]; seen {
			return val.value, val.names, val.ok
		}
		if !outer {
			break
		}
	}
	return "", nil, false
}

// Has reports whether name was assigned in the innermost scope, whatever its value.
func (v *Vars) Has(name string) bool {
	if len(v.scopes) == 0 {
		return false
	}
	_, seen := v.scopes[len(v.scopes)-1][name]
	return seen
}
