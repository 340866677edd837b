package reports

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gosarif "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/xeipuuv/gojsonschema"

	"github.com/sunsetscan/sunset/scanner"
)

func TestSARIFGolden(t *testing.T) {
	golden(t, "sarif.golden", []byte(render(t, "sarif", Options{}, ciReport())))
}

// sarifSchemaModule ships the official SARIF 2.1.0 schema (OASIS errata01) in its source, as
// the unexported constant `schema` of pkg/report/v210/sarif/schema.go. The test reads that
// file from the module cache, where building this test put it, so validation needs no network.
const sarifSchemaModule = "github.com/owenrumney/go-sarif/v3"

// officialSARIFSchema loads the schema once.
var officialSARIFSchema = sync.OnceValues(func() (*gojsonschema.Schema, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", sarifSchemaModule).Output()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go"))
	if err != nil {
		return nil, err
	}
	text := string(src)
	start, end := strings.IndexByte(text, '`'), strings.LastIndexByte(text, '`')
	if start < 0 || end <= start {
		return nil, os.ErrNotExist
	}
	schema := text[start+1 : end]
	return gojsonschema.NewSchema(gojsonschema.NewStringLoader(schema))
})

// validateSARIF fails the test when doc is not valid against the official schema.
func validateSARIF(t *testing.T, name string, doc []byte) {
	t.Helper()
	schema, err := officialSARIFSchema()
	if err != nil {
		t.Fatalf("loading the SARIF 2.1.0 schema from %s: %v", sarifSchemaModule, err)
	}
	res, err := schema.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		t.Fatalf("%s: validating: %v", name, err)
	}
	for _, e := range res.Errors() {
		t.Errorf("%s: %s", name, e)
	}
}

func TestSARIFSchema(t *testing.T) {
	schema, err := officialSARIFSchema()
	if err != nil {
		t.Fatalf("loading the SARIF 2.1.0 schema from %s: %v", sarifSchemaModule, err)
	}
	// The schema is the official one, and the validator rejects what it must.
	raw, _ := json.Marshal(map[string]any{"version": "2.1.0", "runs": []any{map[string]any{
		"tool":    map[string]any{"driver": map[string]any{"name": "x"}},
		"results": []any{map[string]any{"message": map[string]any{"text": "m"}, "level": "fatal"}},
	}}})
	if res, err := schema.Validate(gojsonschema.NewBytesLoader(raw)); err != nil || res.Valid() {
		t.Fatalf("a result with level \"fatal\" validated (err %v): the schema or validator is not doing its job", err)
	}
	empty := NewReport(Input{Version: "1.2.3", AsOf: asOf})
	for name, r := range map[string]*Report{
		"mixed": ciReport(), "sample": sampleReport(), "files": filesReport(), "empty": empty,
		"hostile": hostileReport(), "many": NewReport(Input{Findings: manyFindings(20)}),
		"bare": {}, // a report with nothing set, not even the tool version
	} {
		validateSARIF(t, name, []byte(render(t, "sarif", Options{}, r)))
	}
}

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID                   string `json:"id"`
					Name                 string `json:"name"`
					ShortDescription     struct{ Text string }
					FullDescription      struct{ Text string }
					Help                 struct{ Text, Markdown string }
					HelpURI              string `json:"helpUri"`
					DefaultConfiguration struct{ Level string }
					Properties           struct {
						Tags      []string `json:"tags"`
						EndOfLife string   `json:"endOfLife"`
					}
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful        bool `json:"executionSuccessful"`
			ToolExecutionNotifications []struct {
				Level   string
				Message struct{ Text string }
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

func parseSARIF(t *testing.T, out string) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("SARIF does not parse: %v\n%s", err, out)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("want one run, got %d", len(doc.Runs))
	}
	return doc
}

// TestSARIFGitHubRules checks what GitHub code scanning requires beyond the schema, on the
// report of a files scan (the one to upload): every result names a rule by id and index, has
// one to ten locations, each with a relative artifact URI and a 1-based region; rules are
// unique with at most 20 tags; fingerprints are present.
func TestSARIFGitHubRules(t *testing.T) {
	r := filesReport()
	doc := parseSARIF(t, render(t, "sarif", Options{}, r))
	run := doc.Runs[0]
	if doc.Schema != SARIFSchemaURI || doc.Version != "2.1.0" || run.Tool.Driver.Name != "sunset" ||
		run.Tool.Driver.Version != "1.2.3" || run.Tool.Driver.InformationURI == "" {
		t.Errorf("log header: %+v", doc)
	}
	ids := map[string]bool{}
	for _, rule := range run.Tool.Driver.Rules {
		if ids[rule.ID] {
			t.Errorf("rule %s appears twice", rule.ID)
		}
		ids[rule.ID] = true
		if rule.Name == "" || rule.ShortDescription.Text == "" || rule.FullDescription.Text == "" ||
			rule.Help.Text == "" || rule.Help.Markdown == "" {
			t.Errorf("rule %s lacks a name, description or help: %+v", rule.ID, rule)
		}
		if n := len(rule.Properties.Tags); n == 0 || n > 20 {
			t.Errorf("rule %s has %d tags", rule.ID, n)
		}
	}
	if len(run.Results) != r.Findings.Len() {
		t.Fatalf("%d results for %d findings", len(run.Results), r.Findings.Len())
	}
	for i, res := range run.Results {
		f := r.Findings.At(i)
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d does not point at rule %s", i, res.RuleIndex, res.RuleID)
		}
		if res.Message.Text == "" || res.PartialFingerprints[SARIFFingerprintKey] != f.Fingerprint {
			t.Errorf("result %d: message %q, fingerprints %v", i, res.Message.Text, res.PartialFingerprints)
		}
		if n := len(res.Locations); n < 1 || n > 10 {
			t.Fatalf("result %d has %d locations", i, n)
		}
		loc := res.Locations[0]
		if loc.PhysicalLocation == nil {
			t.Fatalf("result %d (a file finding) has no physical location", i)
		}
		uri := loc.PhysicalLocation.ArtifactLocation.URI
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "" || u.IsAbs() || strings.HasPrefix(uri, "/") || strings.Contains(uri, `\`) || strings.HasPrefix(uri, "./") {
			t.Errorf("result %d: uri %q is not a clean relative reference (%v)", i, uri, err)
		}
		if got, _ := url.PathUnescape(uri); got != slashPath(f.Location.Path) {
			t.Errorf("result %d: uri %q decodes to %q, want %q", i, uri, got, slashPath(f.Location.Path))
		}
		if reg := loc.PhysicalLocation.Region; reg == nil || reg.StartLine != f.Location.StartLine {
			t.Errorf("result %d: region %+v, want start line %d", i, reg, f.Location.StartLine)
		}
		if (len(res.Suppressions) > 0) != f.Suppressed {
			t.Errorf("result %d: suppressions %+v for suppressed=%v", i, res.Suppressions, f.Suppressed)
		}
	}
	// The one region with every position set.
	reg := run.Results[1].Locations[0].PhysicalLocation.Region
	if *reg != (sarifRegion{StartLine: 7, StartColumn: 5, EndLine: 7, EndColumn: 31}) {
		t.Errorf("region = %+v", *reg)
	}
	if run.Results[1].Locations[0].PhysicalLocation.ArtifactLocation.URI != "envs/prod%2C%20eu%3Awest/zone%20settings%25.tf" {
		t.Errorf("uri = %q", run.Results[1].Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	if s := run.Results[2].Suppressions; len(s) != 1 || s[0].Kind != "inSource" || s[0].Justification != "suppressed by inline comment" {
		t.Errorf("inline suppression = %+v", s)
	}
}

func TestSARIFLiveFindings(t *testing.T) {
	r := ciReport()
	doc := parseSARIF(t, render(t, "sarif", Options{}, r))
	run := doc.Runs[0]
	levels := map[scanner.Severity]string{scanner.SeverityError: "error", scanner.SeverityWarning: "warning", scanner.SeverityNotice: "note"}
	for i, res := range run.Results {
		f := r.Findings.At(i)
		if res.Level != levels[f.Severity] {
			t.Errorf("result %d: level %q for %s", i, res.Level, f.Severity)
		}
		loc := res.Locations[0]
		if f.Location != nil {
			continue
		}
		if loc.PhysicalLocation != nil || len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].Kind != "resource" {
			t.Errorf("live result %d: location %+v, want one logical location only", i, loc)
		}
	}
	if got := run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "example.com/firewall_rule/372e67954025e0ba6aaa6d586b9e0b59" {
		t.Errorf("fully qualified name = %q", got)
	}
	if got := run.Results[4].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "account:a1/access_bookmark/a1" {
		t.Errorf("account-level fully qualified name = %q", got)
	}
	if s := run.Results[2].Suppressions; len(s) != 1 || s[0].Kind != "external" || s[0].Justification != "suppressed by baseline" {
		t.Errorf("baseline suppression = %+v", s)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != len(r.Errors) {
		t.Errorf("invocation = %+v, want unsuccessful with %d notifications", inv, len(r.Errors))
	}
	for _, n := range inv.ToolExecutionNotifications {
		if n.Level != "error" || n.Message.Text == "" {
			t.Errorf("notification %+v", n)
		}
	}
	rules := run.Tool.Driver.Rules
	byID := map[string]int{}
	for i, rule := range rules {
		byID[rule.ID] = i
	}
	fw := rules[byID["firewall-rules"]]
	if fw.HelpURI != "https://example.invalid/fw" || fw.DefaultConfiguration.Level != "error" || fw.Name != "FirewallRules" ||
		!strings.Contains(fw.Help.Markdown, "**Replacement:** custom rules") || !strings.Contains(fw.Help.Text, "End of life: 2025-06-15.") ||
		fw.FullDescription.Text != "The firewall rules API and its filters are retired; custom rules replace them." {
		t.Errorf("firewall-rules rule = %+v", fw)
	}
	if br := rules[byID["zone-setting-brotli"]]; br.DefaultConfiguration.Level != "note" || br.Properties.Tags[0] != "advisory" {
		t.Errorf("advisory rule = %+v", br)
	}
	if srv := rules[byID["srv-data-fields"]]; srv.HelpURI != "" || strings.Contains(srv.Help.Markdown, "[Documentation]") || strings.Contains(srv.Help.Text, "Documentation:") {
		t.Errorf("a javascript: doc_url became a link: %+v", srv)
	}
}

func TestSARIFEmpty(t *testing.T) {
	out := render(t, "sarif", Options{}, NewReport(Input{Version: "1.2.3", AsOf: asOf}))
	for _, want := range []string{`"results": []`, `"rules": []`, `"executionSuccessful": true`} {
		if !strings.Contains(out, want) {
			t.Errorf("empty run lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "null") || strings.Contains(out, "toolExecutionNotifications") {
		t.Errorf("empty run:\n%s", out)
	}
}

// TestSARIFReadsBack parses the output with an independent SARIF library.
func TestSARIFReadsBack(t *testing.T) {
	out := render(t, "sarif", Options{}, ciReport())
	log, err := gosarif.FromString(out, gosarif.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != ciReport().Findings.Len() {
		t.Fatalf("go-sarif reads %d runs", len(log.Runs))
	}
	res := log.Runs[0].Results[5]
	if res.RuleID == nil || *res.RuleID != "firewall-rules" || res.Level != "error" {
		t.Errorf("result 5 = %+v", res)
	}
	loc := res.Locations[0].PhysicalLocation
	if loc == nil || *loc.ArtifactLocation.URI != "infra/waf.tf" || *loc.Region.StartLine != 12 || *loc.Region.EndColumn != 2 {
		t.Errorf("result 5 location = %+v", loc)
	}
}

func TestArtifactURI(t *testing.T) {
	for in, want := range map[string]string{
		"infra/waf.tf":               "infra/waf.tf",
		"./infra/waf.tf":             "infra/waf.tf",
		`infra\modules\waf.tf`:       "infra/modules/waf.tf",
		"a b/c#d?e.tf":               "a%20b/c%23d%3Fe.tf",
		"c:d/x.tf":                   "c%3Ad/x.tf", // a ':' in the first segment would read as a scheme
		"100%/x.tf":                  "100%25/x.tf",
		"zöne/例.tf":                  "z%C3%B6ne/%E4%BE%8B.tf",
		"/abs/path.tf":               "file:///abs/path.tf",
		`C:\repo\main.tf`:            "file:///C:/repo/main.tf",
		"a,b;c=d&e+f@g!h'i(j)k*l.tf": "a%2Cb%3Bc%3Dd%26e%2Bf%40g%21h%27i%28j%29k%2Al.tf",
	} {
		got := artifactURI(in)
		if got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("artifactURI(%q) = %q does not parse: %v", in, got, err)
		}
	}
}

func TestSARIFRegion(t *testing.T) {
	for _, tt := range []struct {
		loc  scanner.Location
		want *sarifRegion
	}{
		{scanner.Location{Path: "a"}, nil},
		{scanner.Location{Path: "a", StartLine: 3}, &sarifRegion{StartLine: 3}},
		{scanner.Location{Path: "a", StartLine: 3, StartColumn: 2}, &sarifRegion{StartLine: 3, StartColumn: 2}},
		{scanner.Location{Path: "a", StartLine: 3, EndLine: 5}, &sarifRegion{StartLine: 3, EndLine: 5}},
		{scanner.Location{Path: "a", StartLine: 3, StartColumn: 2, EndColumn: 9}, &sarifRegion{StartLine: 3, StartColumn: 2, EndLine: 3, EndColumn: 9}},
		{scanner.Location{Path: "a", StartLine: 3, EndLine: 2}, &sarifRegion{StartLine: 3}},                                                           // inverted lines
		{scanner.Location{Path: "a", StartLine: 3, StartColumn: 9, EndLine: 3, EndColumn: 2}, &sarifRegion{StartLine: 3, StartColumn: 9, EndLine: 3}}, // inverted columns
		{scanner.Location{Path: "a", StartLine: 3, EndColumn: 4}, &sarifRegion{StartLine: 3}},                                                         // an end column alone
	} {
		f := scanner.Finding{Location: &tt.loc}
		got := sarifLocationOf(&f).PhysicalLocation.Region
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("%+v: region %+v, want %+v", tt.loc, got, tt.want)
		}
	}
}

func TestSARIFDeterministic(t *testing.T) {
	first := render(t, "sarif", Options{}, ciReport())
	for range 10 {
		if got := render(t, "sarif", Options{}, ciReport()); got != first {
			t.Fatal("SARIF output differs between runs")
		}
	}
}
