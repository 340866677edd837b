package repo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
)

// The bar the check must clear on code written by others: of the usages a careful reader
// labelled, at least this share found; of the findings, at least this share right.
const (
	corpusMinRecall    = 0.95
	corpusMinPrecision = 0.98
)

// corpusLabels is a corpus's expected.json (../shared/realworld/repos/ and repos2/).
type corpusLabels struct {
	Findings []struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		RuleID string `json:"rule_id"`
		Note   string `json:"note"`
	} `json:"findings"`
	Clean []string `json:"clean"`
}

// TestCorpusRepos checks the files of public repositories in each corpus (repos/, and
// repos2/, kept apart while the checks were first built) against the labels of a careful
// reader: a label is found when a finding of its rule is on its file within two lines of it;
// a finding is right when it finds a label. Each corpus is scored on its own, so one cannot
// make up for the other; it prints every miss and every false positive, with recall and
// precision per rule id.
func TestCorpusRepos(t *testing.T) {
	root := corpus(t)
	for _, name := range []string{"repos", "repos2"} {
		t.Run(name, func(t *testing.T) {
			checkCorpusRepos(t, filepath.Join(root, name))
		})
	}
}

func checkCorpusRepos(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var labels corpusLabels
	if err := json.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, l := range labels.Findings {
		files[l.Path] = true
	}
	for _, p := range labels.Clean {
		files[p] = true
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	t.Chdir(dir)
	res, err := Check(context.Background(), Options{Paths: paths, AsOf: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var found []scanner.Finding
	for _, f := range res.Findings {
		if !strings.HasPrefix(string(f.RuleID), "sunset-") {
			found = append(found, f)
		}
	}
	score := scoreCorpus(labels, found)
	t.Log(score.report())
	if score.recall() < corpusMinRecall {
		t.Errorf("recall %.3f, want at least %.2f (misses above)", score.recall(), corpusMinRecall)
	}
	if score.precision() < corpusMinPrecision {
		t.Errorf("precision %.3f, want at least %.2f (false positives above)", score.precision(), corpusMinPrecision)
	}
}

// corpusScore is the outcome of matching findings to labels.
type corpusScore struct {
	labels, hits map[string]int // per rule id
	misses       []string
	falsePos     []string
	right, all   int
}

func scoreCorpus(labels corpusLabels, found []scanner.Finding) *corpusScore {
	s := &corpusScore{labels: map[string]int{}, hits: map[string]int{}, all: len(found)}
	near := func(line, at int) bool { return abs(line-at) <= 2 }
	for _, l := range labels.Findings {
		s.labels[l.RuleID]++
		hit := false
		for _, f := range found {
			if f.Location.Path == l.Path && string(f.RuleID) == l.RuleID && near(l.Line, f.Location.StartLine) {
				hit = true
				break
			}
		}
		if hit {
			s.hits[l.RuleID]++
		} else {
			s.misses = append(s.misses, fmt.Sprintf("%s:%d %s (%s)", l.Path, l.Line, l.RuleID, l.Note))
		}
	}
	for _, f := range found {
		right := false
		for _, l := range labels.Findings {
			if f.Location.Path == l.Path && string(f.RuleID) == l.RuleID && near(l.Line, f.Location.StartLine) {
				right = true
				break
			}
		}
		if right {
			s.right++
		} else {
			s.falsePos = append(s.falsePos, fmt.Sprintf("%s:%d %s: %s", f.Location.Path, f.Location.StartLine, f.RuleID, clip(f.Message, 100)))
		}
	}
	return s
}

func (s *corpusScore) recall() float64 {
	n, h := 0, 0
	for r, c := range s.labels {
		n += c
		h += s.hits[r]
	}
	return float64(h) / float64(max(n, 1))
}

func (s *corpusScore) precision() float64 { return float64(s.right) / float64(max(s.all, 1)) }

func (s *corpusScore) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recall %.3f, precision %.3f (%d of %d findings right)\n", s.recall(), s.precision(), s.right, s.all)
	rules := make([]string, 0, len(s.labels))
	for r := range s.labels {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		fmt.Fprintf(&b, "  %-34s %d/%d\n", r, s.hits[r], s.labels[r])
	}
	for _, m := range s.misses {
		b.WriteString("  miss: " + m + "\n")
	}
	for _, f := range s.falsePos {
		b.WriteString("  false positive: " + f + "\n")
	}
	return b.String()
}
