package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// wantRE reads the expectations written in the fixtures' comments: "want: rule[, rule]" for
// findings on the comment's own line, "want-N: rule" for N lines above it (a command
// continued over several lines takes no comment in between).
var wantRE = regexp.MustCompile(`want(-\d+)?: ([a-z0-9-]+(?:, [a-z0-9-]+)*)`)

// TestCodeFixtures checks the program source in testdata/code, one file per library or
// style of call, against the findings its comments expect: every expected finding at its
// line, and nothing else (a file without expectations must have no finding).
func TestCodeFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "code")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(nil, asOf)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for i, line := range strings.Split(string(data), "\n") {
				for _, m := range wantRE.FindAllStringSubmatch(line, -1) {
					at := i + 1
					if m[1] != "" {
						n, _ := strconv.Atoi(m[1])
						at += n
					}
					for _, rule := range strings.Split(m[2], ", ") {
						want = append(want, fmt.Sprintf("%d %s", at, rule))
					}
				}
			}
			for _, f := range c.CheckFile(e.Name(), KindOf(e.Name()), data).Findings {
				got = append(got, fmt.Sprintf("%d %s", f.Location.StartLine, f.RuleID))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("findings (line rule):\n got  %v\n want %v", got, want)
			}
		})
	}
}
