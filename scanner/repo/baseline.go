package repo

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
)

// BaselineVersion is the version of the baseline file format.
const BaselineVersion = 1

// Baseline is a recorded set of findings, by fingerprint (line-independent: rule, path and
// resource address), that a check treats as known: they are reported suppressed with
// suppressed_by "baseline", and only new findings count. The file is JSON, entries sorted by
// fingerprint, so it diffs well in review.
type Baseline struct {
	Version int             `json:"version"`
	Entries []BaselineEntry `json:"entries"`
}

// BaselineEntry is one recorded finding. Only Fingerprint is matched; the rest says what it
// was, for people reading the file and for the stale-entry report.
type BaselineEntry struct {
	Fingerprint string       `json:"fingerprint"`
	RuleID      vocab.RuleID `json:"rule_id"`
	Path        string       `json:"path,omitempty"`
	Resource    string       `json:"resource,omitempty"`
}

// NewBaseline records the findings that are not suppressed otherwise (inline or by config).
func NewBaseline(fs []scanner.Finding) *Baseline {
	b := &Baseline{Version: BaselineVersion, Entries: []BaselineEntry{}}
	seen := map[string]bool{}
	for _, f := range fs {
		if (f.Suppressed && f.SuppressedBy != SuppressedByBaseline) || seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		e := BaselineEntry{Fingerprint: f.Fingerprint, RuleID: f.RuleID, Resource: resourceLabel(f.Resource)}
		if f.Location != nil {
			e.Path = f.Location.Path
		}
		b.Entries = append(b.Entries, e)
	}
	sort.Slice(b.Entries, func(i, j int) bool { return b.Entries[i].Fingerprint < b.Entries[j].Fingerprint })
	return b
}

func resourceLabel(r scanner.Resource) string {
	parts := []string{string(r.Kind)}
	for _, s := range []string{r.ID, r.Name} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// ReadBaseline reads a baseline file.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("not a sunset baseline: %w", err)
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline version %d is not supported (want %d)", b.Version, BaselineVersion)
	}
	for i, e := range b.Entries {
		if e.Fingerprint == "" {
			return nil, fmt.Errorf("baseline entry %d has no fingerprint", i+1)
		}
	}
	return &b, nil
}

// Write writes the baseline as indented JSON.
func (b *Baseline) Write(w io.Writer) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Suppression reasons set by Policy.Apply.
const (
	SuppressedByBaseline = "baseline"
	SuppressedByConfig   = "config: rule disabled"
)

// Policy is what happens to findings after the files are checked: severity overrides,
// disabled rules and a baseline. Inline suppressions are applied per file before it.
type Policy struct {
	// Severity overrides a rule's severity (notice, warning, error; none drops its findings).
	Severity map[string]scanner.Severity
	// Disabled rules' findings are suppressed with SuppressedByConfig.
	Disabled []string
	// Baseline, when set, suppresses the findings it records with SuppressedByBaseline.
	Baseline *Baseline
}

// Apply returns the findings with the policy applied (sorted as given) and the baseline
// entries that matched no finding: stale entries, whose finding was fixed or moved to another
// file or resource. Stale entries are not findings: the CLI lists them on stderr.
func (p Policy) Apply(fs []scanner.Finding) ([]scanner.Finding, []BaselineEntry) {
	disabled := map[string]bool{}
	for _, id := range p.Disabled {
		disabled[id] = true
	}
	inBaseline := map[string]bool{}
	if p.Baseline != nil {
		for _, e := range p.Baseline.Entries {
			inBaseline[e.Fingerprint] = true
		}
	}
	matched := map[string]bool{}
	out := make([]scanner.Finding, 0, len(fs))
	for _, f := range fs {
		if sev, ok := p.Severity[string(f.RuleID)]; ok {
			if sev == scanner.SeverityNone {
				continue
			}
			f.Severity = sev
		}
		if inBaseline[f.Fingerprint] {
			matched[f.Fingerprint] = true
		}
		switch {
		case f.Suppressed:
		case disabled[string(f.RuleID)]:
			f.Suppressed, f.SuppressedBy = true, SuppressedByConfig
		case inBaseline[f.Fingerprint]:
			f.Suppressed, f.SuppressedBy = true, SuppressedByBaseline
		}
		out = append(out, f)
	}
	var stale []BaselineEntry
	if p.Baseline != nil {
		for _, e := range p.Baseline.Entries {
			if !matched[e.Fingerprint] {
				stale = append(stale, e)
			}
		}
	}
	return out, stale
}
