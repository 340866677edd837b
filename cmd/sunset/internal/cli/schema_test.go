package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
	"github.com/sunsetscan/sunset/cmd/sunset/schema"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo"
)

// configTestdata holds configuration files the schema and the loader must agree on: those
// under valid/ both accept, those under invalid/ both refuse.
const configTestdata = "../../../../testdata/config"

// TestConfigSchemaAgreesWithLoader: a file the schema accepts, `sunset check --config FILE`
// loads (exit 0 with --print-config), and a file it refuses, the loader refuses (exit 2);
// the effective configuration --print-config writes is valid too.
func TestConfigSchemaAgreesWithLoader(t *testing.T) {
	sch := compileConfigSchema(t)
	for _, want := range []string{"valid", "invalid"} {
		files, err := filepath.Glob(filepath.Join(configTestdata, want, "*.yaml"))
		if err != nil || len(files) < 10 {
			t.Fatalf("%s: %d files (%v)", want, len(files), err)
		}
		for _, f := range files {
			t.Run(want+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				schemaErr := validateYAML(sch, data)
				r := runSunset(t, nil, "check", "--config", f, "--print-config")
				switch {
				case want == "valid" && schemaErr != nil:
					t.Errorf("the schema refuses it: %v", schemaErr)
				case want == "valid" && r.code != ExitOK:
					t.Errorf("the loader refuses it: exit %d\n%s", r.code, r.stderr)
				case want == "valid":
					if err := validateYAML(sch, []byte(r.stdout)); err != nil {
						t.Errorf("the schema refuses what --print-config wrote: %v\n%s", err, r.stdout)
					}
				case schemaErr == nil:
					t.Errorf("the schema accepts it")
				case r.code != ExitUsage:
					t.Errorf("the loader does not refuse it: exit %d\n%s", r.code, r.stderr)
				}
			})
		}
	}
}

// TestConfigSchemaAcceptsTheDocsExamples: every .sunset.yaml the documentation shows (a yaml
// code block starting "# .sunset.yaml", in the README or a help topic) is valid, names the
// schema as editors read it, and loads; a block of .sunset.yaml keys alone starts so.
func TestConfigSchemaAcceptsTheDocsExamples(t *testing.T) {
	sch := compileConfigSchema(t)
	docs := map[string]string{}
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	docs["README.md"] = string(readme)
	for _, name := range help.Names() {
		docs[name+".md"], _ = help.Markdown(name)
	}
	n := 0
	for doc, text := range docs {
		for i, block := range configExamples(text) {
			n++
			if err := validateYAML(sch, []byte(block)); err != nil {
				t.Errorf("%s, example %d: the schema refuses it: %v\n%s", doc, i+1, err, block)
			}
			if !strings.Contains(block, "# yaml-language-server: $schema="+schema.URL+"\n") {
				t.Errorf("%s, example %d: no yaml-language-server line naming %s", doc, i+1, schema.URL)
			}
			f := filepath.Join(t.TempDir(), ".sunset.yaml")
			if err := os.WriteFile(f, []byte(block), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := runSunset(t, nil, "check", "--config", f, "--print-config"); r.code != ExitOK {
				t.Errorf("%s, example %d: the loader refuses it: exit %d\n%s", doc, i+1, r.code, r.stderr)
			}
		}
	}
	for doc, text := range docs {
		for _, m := range yamlBlock.FindAllStringSubmatch(text, -1) {
			if !configExample.MatchString(m[0]) && isConfig(m[1]) {
				t.Errorf("%s: a .sunset.yaml example that does not start \"# .sunset.yaml\" (so it is not checked):\n%s", doc, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no .sunset.yaml example in the documentation")
	}
}

// yamlBlock finds the YAML code blocks of a Markdown file.
var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// isConfig says whether a YAML document is a mapping of .sunset.yaml keys alone.
func isConfig(block string) bool {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil || len(doc) == 0 {
		return false
	}
	for key := range doc {
		if !slices.ContainsFunc(repo.ConfigKeys(), func(k string) bool { return k == key || strings.HasPrefix(k, key+".") }) {
			return false
		}
	}
	return true
}

// TestConfigSchemaKeysAreTheLoaders: the schema's keys, rules' too, are those the loader reads.
func TestConfigSchemaKeysAreTheLoaders(t *testing.T) {
	type object struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var doc object
	if err := json.Unmarshal(schema.Config(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for key, raw := range doc.Properties {
		var nested object
		if err := json.Unmarshal(raw, &nested); err != nil {
			t.Fatal(err)
		}
		if len(nested.Properties) == 0 {
			got = append(got, key)
		}
		for sub := range nested.Properties {
			got = append(got, key+"."+sub)
		}
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(repo.ConfigKeys()))
	if !slices.Equal(got, want) {
		t.Errorf("the schema's keys %q, the loader's %q", got, want)
	}
}

// TestConfigSchemaRuleIDs: the schema's rule ids are exactly those a configuration may name:
// the built-in catalog's and sunset's own.
func TestConfigSchemaRuleIDs(t *testing.T) {
	var doc struct {
		ID          string `json:"$id"`
		Definitions struct {
			RuleID struct {
				Enum []string `json:"enum"`
			} `json:"ruleId"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(schema.Config(), &doc); err != nil {
		t.Fatal(err)
	}
	want := repo.ToolRuleIDs()
	for _, e := range catalog.Default().Entries() {
		want = append(want, string(e.ID))
	}
	slices.Sort(want)
	if !slices.Equal(doc.Definitions.RuleID.Enum, want) {
		t.Errorf("definitions.ruleId.enum in cmd/sunset/schema/sunset.schema.json:\n got %q\nwant %q", doc.Definitions.RuleID.Enum, want)
	}
	if doc.ID != schema.URL {
		t.Errorf("$id %q, want %q", doc.ID, schema.URL)
	}
	if r := runSunset(t, nil, "check", "--print-schema"); r.code != ExitOK || r.stdout != string(schema.Config()) {
		t.Errorf("check --print-schema: exit %d, not the schema:\n%.200s", r.code, r.stdout)
	}
}

// compileConfigSchema compiles the embedded schema (checking it against its meta-schema).
func compileConfigSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.Config()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schema.URL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schema.URL)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// validateYAML validates a YAML document against the schema, as an editor does: the values as
// YAML types them (numbers, booleans, null); a document that does not parse is refused.
func validateYAML(sch *jsonschema.Schema, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	v, err := jsonValue(&doc)
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// jsonValue is a YAML node as the JSON value the schema validates; a key given twice is an
// error, as in YAML.
func jsonValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return jsonValue(n.Content[0])
	case yaml.AliasNode:
		return jsonValue(n.Alias)
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := jsonValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("line %d: key %q given twice", n.Content[i].Line, key)
			}
			v, err := jsonValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		return out, nil
	}
	return jsonScalar(n)
}

// jsonScalar is a YAML scalar as JSON types it: null, a boolean, a number, else a string.
func jsonScalar(n *yaml.Node) (any, error) {
	var v any
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
	default:
		return n.Value, nil
	}
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return n.Value, nil
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	}
	return v, nil
}

// configExample finds the YAML code blocks of a Markdown file that start "# .sunset.yaml".
var configExample = regexp.MustCompile("(?s)```yaml\n(# \\.sunset\\.yaml\n.*?)```")

// configExamples are the .sunset.yaml examples of a Markdown text.
func configExamples(markdown string) []string {
	var out []string
	for _, m := range configExample.FindAllStringSubmatch(markdown, -1) {
		out = append(out, m[1])
	}
	return out
}
