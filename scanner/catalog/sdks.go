package catalog

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

//go:embed sdks.yaml
var embeddedSDKs []byte

// SDKLanguages are the languages an SDK entry may name: the program source `sunset check`
// reads (javascript covers TypeScript).
var SDKLanguages = []string{"elixir", "go", "javascript", "php", "python", "ruby", "shell"}

// SDK is how one client or infrastructure-as-code library reaches deprecated parts of the API
// without writing their paths (sdks.yaml says what each field means).
type SDK struct {
	ID        string   `yaml:"id"`
	Title     string   `yaml:"title"`
	Languages []string `yaml:"languages"`
	Imports   []string `yaml:"imports"`
	// Calls, Services and Types map a catalog rule id to names of calls, service chains and
	// resource classes.
	Calls    map[vocab.RuleID][]string `yaml:"calls,omitempty"`
	Services map[vocab.RuleID][]string `yaml:"services,omitempty"`
	Types    map[vocab.RuleID][]string `yaml:"types,omitempty"`
	// PathChains: attribute chains spell the API path (python-cloudflare); Verbs name the
	// HTTP method of each chain's last element.
	PathChains bool              `yaml:"path_chains,omitempty"`
	Verbs      map[string]string `yaml:"verbs,omitempty"`
	// SettingCalls take a zone setting id as a string argument; SettingsTypes take settings
	// by key.
	SettingCalls  []string `yaml:"setting_calls,omitempty"`
	SettingsTypes []string `yaml:"settings_types,omitempty"`
}

// SpeaksFor reports whether the SDK applies to files of lang.
func (s SDK) SpeaksFor(lang string) bool { return slices.Contains(s.Languages, lang) }

// ImportMatch returns the length of the longest of the SDK's imports that imp is or continues
// (with "/", ".", "\\" or "::"), 0 when none: the caller keeps the SDKs of the longest match, so that
// github.com/cloudflare/cloudflare-go/v4 is v4, not v0.
func (s SDK) ImportMatch(imp string) int {
	best := 0
	for _, m := range s.Imports {
		if imp == m || (strings.HasPrefix(imp, m) && strings.ContainsAny(imp[len(m):len(m)+1], "/.\\:")) {
			best = max(best, len(m))
		}
	}
	return best
}

// APIMarks are what says that a file talks to this API at all (sdks.yaml's api).
type APIMarks struct {
	Hosts         []string `yaml:"hosts"`
	BasePath      string   `yaml:"base_path"`
	NamespaceWord string   `yaml:"namespace_word"`
}

// CodeTable is sdks.yaml: the API's marks and the SDKs.
type CodeTable struct {
	API  APIMarks `yaml:"api"`
	SDKs []SDK    `yaml:"sdks"`
}

// defaultCode parses and validates the embedded table once per process (every checker uses it).
var defaultCode = sync.OnceValues(func() (*CodeTable, error) {
	t, err := ParseCodeTable(embeddedSDKs, "sdks.yaml")
	if err == nil {
		err = ValidateSDKs(t.SDKs, Default())
	}
	return t, err
})

// DefaultCode returns the embedded table (sdks.yaml), validated against the embedded catalog.
// It panics only if the embedded data is invalid, which a test guards against.
func DefaultCode() *CodeTable {
	t, err := defaultCode()
	if err != nil {
		panic("catalog: embedded sdks.yaml is invalid: " + err.Error())
	}
	return t
}

// ParseCodeTable reads an SDK table; unknown fields are errors naming their line.
func ParseCodeTable(data []byte, name string) (*CodeTable, error) {
	var doc CodeTable
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &doc, nil
}

// ValidateSDKs checks an SDK table against a catalog: ids unique and present, every language
// known, every rule id an entry of cat, names not empty, verbs HTTP methods.
func ValidateSDKs(sdks []SDK, cat *Catalog) error {
	seen := map[string]bool{}
	for _, s := range sdks {
		if s.ID == "" || seen[s.ID] {
			return fmt.Errorf("sdk %q: missing or repeated id", s.ID)
		}
		seen[s.ID] = true
		if len(s.Languages) == 0 || len(s.Imports) == 0 {
			return fmt.Errorf("sdk %s: languages and imports are required", s.ID)
		}
		for _, l := range s.Languages {
			if !slices.Contains(SDKLanguages, l) {
				return fmt.Errorf("sdk %s: unknown language %q (want one of %s)", s.ID, l, strings.Join(SDKLanguages, ", "))
			}
		}
		for _, m := range []map[vocab.RuleID][]string{s.Calls, s.Services, s.Types} {
			if err := validateNames(s.ID, m, cat); err != nil {
				return err
			}
		}
		for v, method := range s.Verbs {
			if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, method) {
				return fmt.Errorf("sdk %s: verb %s maps to %q, not an HTTP method", s.ID, v, method)
			}
		}
	}
	return nil
}

func validateNames(sdk string, m map[vocab.RuleID][]string, cat *Catalog) error {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := cat.Lookup(vocab.RuleID(id)); !ok {
			return fmt.Errorf("sdk %s: unknown rule id %q", sdk, id)
		}
		for _, n := range m[vocab.RuleID(id)] {
			if strings.TrimSpace(n) == "" || strings.Contains(n, "..") {
				return fmt.Errorf("sdk %s: rule %s: empty or malformed name %q", sdk, id, n)
			}
		}
	}
	return nil
}
