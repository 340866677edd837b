package catalog

import (
	"strings"
	"testing"
)

const validUser = `entries:
  - id: team-legacy-api
    title: Our legacy proxy route
    description: The proxy route we retire.
    deprecated_on: 2025-02-01
    end_of_life: "2025-09-01"
    date_source: notice
    replacement: Call the API directly.
    doc_url: https://example.com/runbook
    match:
      endpoints:
        - {methods: [GET], path: /zones/:zone_id/legacy_proxy}
`

func TestParseValidFile(t *testing.T) {
	es, err := Parse([]byte(validUser), "team.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("got %d entries", len(es))
	}
	e := es[0]
	if e.ID != "team-legacy-api" || e.DeprecatedOn.String() != "2025-02-01" || e.EndOfLife.String() != "2025-09-01" || e.Origin != "team.yaml:2" {
		t.Errorf("parsed %+v", e)
	}
	// A bare list is accepted too.
	bare := strings.ReplaceAll(strings.TrimPrefix(validUser, "entries:\n"), "\n  ", "\n")
	bare = strings.TrimPrefix(bare, "  ")
	es2, err := Parse([]byte(bare), "bare.yaml")
	if err != nil || len(es2) != 1 || es2[0].ID != "team-legacy-api" {
		t.Fatalf("bare list: %v %v", es2, err)
	}
	if es, err := Parse([]byte("  \n"), "empty.yaml"); err != nil || es != nil {
		t.Errorf("empty file: %v, %v", es, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want []string // all must appear in the error
	}{
		{"malformed YAML", "entries:\n  - id: a\n   title: [unclosed\n", []string{"user.yaml:1: invalid YAML", "indentation"}},
		{"unknown key", strings.Replace(validUser, "    title:", "    titel: oops\n    title:", 1),
			[]string{"user.yaml:3:", `entry "team-legacy-api"`, `unknown key "titel"`, "title"}},
		{"unknown nested key", strings.Replace(validUser, "{methods: [GET],", "{method: [GET],", 1),
			[]string{"user.yaml:12:", `entry "team-legacy-api"`, `unknown key "method"`, "methods"}},
		{"bad date", strings.Replace(validUser, "2025-02-01", "2025-13-01", 1),
			[]string{"user.yaml:5:", `entry "team-legacy-api"`, `invalid date "2025-13-01"`, "YYYY-MM-DD"}},
		{"date with time", strings.Replace(validUser, "2025-02-01", "2025-02-01T10:00:00Z", 1),
			[]string{"user.yaml:5:", "YYYY-MM-DD"}},
		{"wrong type", strings.Replace(validUser, "date_source: notice", "date_source: notice\n    advisory: maybe", 1),
			[]string{"user.yaml:8:", `entry "team-legacy-api"`, "true or false"}},
		{"unquoted colon", strings.Replace(validUser, "Call the API directly.", "None: nothing", 1),
			[]string{"user.yaml:8:", "quoted"}},
		{"end before deprecation", strings.Replace(validUser, `"2025-09-01"`, "2025-01-01", 1),
			[]string{"user.yaml:6:", `entry "team-legacy-api"`, "before deprecated_on"}},
		{"bad id", strings.Replace(validUser, "team-legacy-api", "Team_Legacy", 1),
			[]string{"user.yaml:2:", `"Team_Legacy"`, "kebab-case"}},
		{"missing fields", "entries:\n  - id: x\n    date_source: rumour\n    match: {objects: [widget]}\n",
			[]string{"user.yaml:2:", `entry "x"`, "title is missing", "replacement is missing", "doc_url is missing",
				`user.yaml:3: entry "x": date_source "rumour"`, `user.yaml:4: entry "x": match.objects: "widget" is not an object kind`}},
		{"bad method and path", strings.Replace(validUser, "{methods: [GET], path: /zones/:zone_id/legacy_proxy}", "{methods: [get], path: zones/:zone_id}", 1),
			[]string{"user.yaml:10:", `method "get" must be an upper-case HTTP verb`, `path "zones/:zone_id" must start with "/"`}},
		{"bad regex", strings.Replace(validUser, "      endpoints:", "      text: ['(unclosed']\n      endpoints:", 1),
			[]string{"does not compile"}},
		{"duplicate in file", validUser + strings.TrimPrefix(validUser, "entries:\n"),
			[]string{"user.yaml:13:", "duplicate id", "user.yaml:2"}},
		{"two documents", validUser + "---\nentries: []\n", []string{"user.yaml:", "one YAML document"}},
		{"not a list", "id: x\n", []string{"user.yaml:1:", `unknown key "id"`}},
		{"scalar", "hello\n", []string{"user.yaml:1:", "expected a list of entries"}},
		{"entries not a list", "entries: {id: x}\n", []string{"user.yaml:1:", "must be a list"}},
		{"unknown top-level key after the list", validUser + "version: 2\n", []string{"user.yaml:13:", `unknown key "version"`, "entries"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "user.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestMerge(t *testing.T) {
	base := Default()
	fw := mustLookup(t, base, "firewall-rules")

	dup := fw
	dup.Origin = "team.yaml:4"
	dup.Title = "Ours"
	if _, err := base.Merge([]Entry{dup}); err == nil ||
		!strings.Contains(err.Error(), "team.yaml:4") || !strings.Contains(err.Error(), fw.Origin) ||
		!strings.Contains(err.Error(), "override: true") {
		t.Errorf("duplicate without override: error %v, want one naming team.yaml:4, %s and override", err, fw.Origin)
	}

	over := dup
	over.Override = true
	over.EndOfLife = NewDate(2025, 12, 31)
	over.Notice = nil
	merged, err := base.Merge([]Entry{over})
	if err != nil {
		t.Fatal(err)
	}
	got := mustLookup(t, merged, "firewall-rules")
	if got.Title != "Ours" || got.EndOfLife.String() != "2025-12-31" {
		t.Errorf("override not applied: %+v", got)
	}
	if mustLookup(t, base, "firewall-rules").Title == "Ours" {
		t.Error("Merge changed the receiver")
	}
	if len(merged.Entries()) != len(base.Entries()) {
		t.Errorf("override changed the entry count: %d", len(merged.Entries()))
	}

	user, err := Parse([]byte(validUser), "team.yaml")
	if err != nil {
		t.Fatal(err)
	}
	added, err := base.Merge(user)
	if err != nil {
		t.Fatal(err)
	}
	if len(added.Entries()) != len(base.Entries())+1 {
		t.Errorf("new entry not added")
	}
	if got := ids(added.MatchEndpoint("GET", "/zones/1/legacy_proxy")); len(got) != 1 || got[0] != "team-legacy-api" {
		t.Errorf("merged entry not matched: %v", got)
	}

	ghost := user[0]
	ghost.Override = true
	if _, err := base.Merge([]Entry{ghost}); err == nil || !strings.Contains(err.Error(), "no entry with that id") {
		t.Errorf("override of a missing id: %v", err)
	}
	if _, err := base.Merge([]Entry{user[0], user[0]}); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("same id twice in the user entries: %v", err)
	}
	bad := user[0]
	bad.DocURL = "ftp://x"
	if _, err := base.Merge([]Entry{bad}); err == nil || !strings.Contains(err.Error(), "https://") {
		t.Errorf("invalid user entry merged: %v", err)
	}

	// The date source survives a merge.
	notice, _ := base.WithDates(DatesNotice)
	nm, err := notice.Merge(user)
	if err != nil {
		t.Fatal(err)
	}
	if nm.Dates() != DatesNotice || mustLookup(t, nm, "firewall-rules").EndOfLife.String() != "2025-06-15" {
		t.Error("Merge lost the notice dates")
	}
}

func TestNewRejectsInvalid(t *testing.T) {
	if _, err := New([]Entry{{ID: "a"}}); err == nil {
		t.Error("New accepted an entry without title")
	}
	e := mustLookup(t, Default(), "filters")
	if _, err := New([]Entry{e, e}); err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("New with a duplicate id: %v", err)
	}
}
