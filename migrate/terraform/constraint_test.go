package terraform

import (
	"sort"
	"strconv"
	"strings"
	"testing"
)

// admits evaluates a Terraform version constraint ("op version" terms joined by commas, ops
// = != > >= < <= ~>, a bare version meaning =) for a version, the way Terraform does for
// release versions: missing parts are 0, and ~> lets only the rightmost given part grow.
func admits(t *testing.T, constraint, version string) bool {
	t.Helper()
	v := parseVersion(t, version)
	for _, term := range strings.Split(constraint, ",") {
		term = strings.TrimSpace(term)
		op := "="
		for _, o := range []string{"~>", ">=", "<=", "!=", ">", "<", "="} {
			if rest, ok := strings.CutPrefix(term, o); ok {
				op, term = o, strings.TrimSpace(rest)
				break
			}
		}
		c := parseVersion(t, term)
		cmp := compareVersions(v, c)
		var ok bool
		switch op {
		case "=":
			ok = cmp == 0
		case "!=":
			ok = cmp != 0
		case ">":
			ok = cmp > 0
		case ">=":
			ok = cmp >= 0
		case "<":
			ok = cmp < 0
		case "<=":
			ok = cmp <= 0
		case "~>":
			given := len(strings.Split(term, "."))
			upper := append([]int(nil), c...)
			if given == 1 {
				given = 2 // "~> 5" behaves as "~> 5.0"
			}
			upper[given-2]++
			for i := given - 1; i < len(upper); i++ {
				upper[i] = 0
			}
			ok = cmp >= 0 && compareVersions(v, upper) < 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// parseVersion reads MAJOR[.MINOR[.PATCH]] as three numbers.
func parseVersion(t *testing.T, s string) []int {
	t.Helper()
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		t.Fatalf("version %q", s)
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("version %q: %v", s, err)
		}
		out[i] = n
	}
	return out
}

func compareVersions(a, b []int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func sortStrings(s []string) { sort.Strings(s) }
