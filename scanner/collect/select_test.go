package collect

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestUnmatchedZonesOfferClosestNames: a --zone entry that matches nothing names the zone
// names within two edits of it (a swap counts one), or that it is the start of; a zone id
// or a name far from all gets none.
func TestUnmatchedZonesOfferClosestNames(t *testing.T) {
	f, _ := newFixture(4) // z000.example.com ... z003.example.com
	_, err := Collect(context.Background(), f, Options{Zones: []string{
		"z000.example.com", "z010.exmaple.com", "Z002.example.co", "z003", "nowhere.test", "0123456789abcdef0123456789abcdef",
	}})
	var ue *UnmatchedZonesError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an UnmatchedZonesError", err)
	}
	want := [][]string{
		{"z000.example.com", "z001.example.com"},                     // "z010.exmaple.com": a swap and a change
		{"z002.example.com", "z000.example.com", "z001.example.com"}, // nearest first, at most 3
		{"z003.example.com"},
		nil, nil,
	}
	if !slices.Equal(ue.Zones, []string{"z010.exmaple.com", "Z002.example.co", "z003", "nowhere.test", "0123456789abcdef0123456789abcdef"}) {
		t.Fatalf("zones %v", ue.Zones)
	}
	for i := range want {
		if !slices.Equal(ue.Closest[i], want[i]) {
			t.Errorf("%s: closest %v, want %v", ue.Zones[i], ue.Closest[i], want[i])
		}
	}
	msg := err.Error()
	for _, s := range []string{
		`no zone is named "z010.exmaple.com"; the closest names: z000.example.com, z001.example.com`,
		`no zone is named "nowhere.test"` + "\n",
		`no zone has the id "0123456789abcdef0123456789abcdef"`,
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.Contains(msg, "collect:") {
		t.Errorf("message has the package prefix:\n%s", msg)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"example.com", "example.com", 0},
		{"exmaple.com", "example.com", 1},
		{"example.co", "example.com", 1},
		{"exampel.org", "example.com", 4},
		{"", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b, 10); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := editDistance("abcdef", "zzzzzz", 3); got != 3 {
		t.Errorf("limited distance = %d, want 3", got)
	}
}
