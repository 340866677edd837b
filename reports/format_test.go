package reports

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFormatFlag(t *testing.T) {
	tests := []struct {
		in      string
		want    FormatSpec
		stdout  bool
		wantErr string
	}{
		{in: "json", want: FormatSpec{Format: "json"}, stdout: true},
		{in: "json:out.json", want: FormatSpec{Format: "json", Path: "out.json"}},
		{in: "table:-", want: FormatSpec{Format: "table", Path: "-"}, stdout: true},
		{in: "TSV", want: FormatSpec{Format: "tsv"}, stdout: true},
		{in: "json:reports/a:b.json", want: FormatSpec{Format: "json", Path: "reports/a:b.json"}},
		{in: `json:C:\reports\out.json`, want: FormatSpec{Format: "json", Path: `C:\reports\out.json`}},
		{in: "json:/tmp/with space.json", want: FormatSpec{Format: "json", Path: "/tmp/with space.json"}},
		{in: "", wantErr: "want FORMAT[:PATH]"},
		{in: ":out.json", wantErr: "want FORMAT[:PATH]"},
		{in: "json:", wantErr: "empty path after ':'"},
		{in: "yaml", wantErr: `unknown format "yaml" (known formats: csv, github, gitlab, html, json, junit, line, markdown, sarif, table, tsv)`},
		{in: `C:\out.json`, wantErr: `unknown format "c"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFormatFlag(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseFormatFlag(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFormatFlag(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseFormatFlag(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if got.Stdout() != tt.stdout {
				t.Errorf("ParseFormatFlag(%q).Stdout() = %v, want %v", tt.in, got.Stdout(), tt.stdout)
			}
			if again, err := ParseFormatFlag(got.String()); err != nil || again != got {
				t.Errorf("String() does not round-trip: %q -> %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseFormatFlags(t *testing.T) {
	specs, err := ParseFormatFlags([]string{"table", "json:out.json", "tsv:rows.tsv"})
	if err != nil {
		t.Fatal(err)
	}
	want := []FormatSpec{{Format: "table"}, {Format: "json", Path: "out.json"}, {Format: "tsv", Path: "rows.tsv"}}
	if !slices.Equal(specs, want) {
		t.Errorf("got %+v, want %+v", specs, want)
	}
	if specs, err := ParseFormatFlags(nil); err != nil || len(specs) != 0 {
		t.Errorf("no values: got %v, %v; want none and no error", specs, err)
	}
	for _, bad := range [][]string{
		{"table", "json"},               // both to stdout
		{"table:-", "json"},             // "-" is stdout too
		{"json:a.json", "tsv:./a.json"}, // same file
		{"json:a.json", "nope:b"},       // unknown format
	} {
		if _, err := ParseFormatFlags(bad); err == nil {
			t.Errorf("ParseFormatFlags(%q) succeeded, want an error", bad)
		}
	}
}

func TestNew(t *testing.T) {
	if got := Formats(); !slices.Equal(got, []string{"csv", "github", "gitlab", "html", "json", "junit", "line", "markdown", "sarif", "table", "tsv"}) || !slices.IsSorted(got) {
		t.Errorf("Formats() = %v", got)
	}
	for _, name := range Formats() {
		if _, err := New(name, Options{}); err != nil {
			t.Errorf("New(%q): %v", name, err)
		}
		if FormatDoc(name) == "" {
			t.Errorf("FormatDoc(%q) is empty", name)
		}
	}
	_, err := New("sarif2", Options{})
	if err == nil || !strings.Contains(err.Error(), "csv, github, gitlab, html, json, junit, line, markdown, sarif, table, tsv") {
		t.Errorf("New(unknown) error = %v, want one listing the known formats", err)
	}
	cases := []struct {
		format string
		opts   Options
		want   Reporter
	}{
		{"table", Options{}, Table{}},
		{"table", Options{Color: true, Width: 80}, Table{Options: Options{Color: true, Width: 80}}},
		{"table", Options{Plain: true}, TSV{}},
		{"Table", Options{Plain: true, Width: 80}, TSV{}},
		{"tsv", Options{Color: true}, TSV{}},
		{"json", Options{Color: true}, JSON{}},
		{"sarif", Options{Color: true}, SARIF{}},
		{"junit", Options{}, JUnit{}},
		{"github", Options{}, GitHub{}},
		{"GitHub", Options{StepSummary: "/tmp/summary.md", Width: 80}, GitHub{StepSummary: "/tmp/summary.md"}},
		{"gitlab", Options{}, GitLab{}},
		{"csv", Options{Plain: true}, CSV{}},
		{"markdown", Options{Width: 80}, Markdown{}},
	}
	for _, c := range cases {
		got, err := New(c.format, c.opts)
		if err != nil || got != c.want {
			t.Errorf("New(%q, %+v) = %#v, %v; want %#v", c.format, c.opts, got, err, c.want)
		}
	}
}
