package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// ConfigFileName is the configuration file looked for in the first path of a check.
const ConfigFileName = ".sunset.yaml"

// Config is a .sunset.yaml file:
//
//	paths: [infra, scripts]          # checked when the command line names no path
//	include: ["**/*.tf", "*.sh"]     # only files matching one (gitignore-style globs)
//	exclude: ["legacy/**"]           # skip files and directories matching one
//	fail_on: warning                 # error | warning | notice | none
//	max_file_size: 5MiB              # larger files are reported and not read
//	baseline: .sunset-baseline.json  # report only findings not in it
//	rules:
//	  disable: [dns-error-chain]     # findings of these rules are suppressed ("config")
//	  severity:                      # per-rule severity overrides
//	    zone-setting-brotli: notice
//
// Relative paths (paths, baseline) are relative to the file's directory. Unknown keys are
// errors (ConfigKeys lists the known ones). Command-line flags win over the file. YAML
// writes every key, empty ones too, so --print-config shows all there is to set.
type Config struct {
	Paths       []string    `yaml:"paths" json:"paths,omitempty"`
	Include     []string    `yaml:"include" json:"include,omitempty"`
	Exclude     []string    `yaml:"exclude" json:"exclude,omitempty"`
	FailOn      string      `yaml:"fail_on" json:"fail_on,omitempty"`
	MaxFileSize string      `yaml:"max_file_size" json:"max_file_size,omitempty"`
	Baseline    string      `yaml:"baseline" json:"baseline,omitempty"`
	Rules       RulesConfig `yaml:"rules" json:"rules,omitzero"`
	// Source is the file the configuration was read from ("" when none); never read from YAML.
	Source string `yaml:"-" json:"-"`
}

// RulesConfig holds per-rule settings.
type RulesConfig struct {
	Disable  []string          `yaml:"disable" json:"disable,omitempty"`
	Severity map[string]string `yaml:"severity" json:"severity,omitempty"`
}

// ConfigKeys lists the keys of a configuration file, a nested one as "rules.disable", in the
// order of the file's documentation.
func ConfigKeys() []string { return keysOf(reflect.TypeFor[Config](), "") }

// keysOf lists the YAML keys of struct type t, those of a nested struct after prefix.
func keysOf(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		name, ft := yamlKey(t.Field(i))
		switch {
		case name == "":
		case ft.Kind() == reflect.Struct:
			out = append(out, keysOf(ft, prefix+name+".")...)
		default:
			out = append(out, prefix+name)
		}
	}
	return out
}

// yamlKey is the key a struct field is read from, "" for none, and the field's type.
func yamlKey(f reflect.StructField) (string, reflect.Type) {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return "", nil
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, f.Type
}

// unknownKey finds the first key of mapping n that struct type t does not read, in nested
// mappings of struct fields too; it returns the key (dotted under prefix) and its line.
func unknownKey(n *yaml.Node, t reflect.Type, prefix string) (string, int) {
	if n.Kind != yaml.MappingNode {
		return "", 0
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		if name, ft := yamlKey(t.Field(i)); name != "" {
			fields[name] = ft
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		if !ok {
			return prefix + k.Value, k.Line
		}
		if ft.Kind() == reflect.Struct {
			if key, line := unknownKey(n.Content[i+1], ft, prefix+k.Value+"."); key != "" {
				return key, line
			}
		}
	}
	return "", 0
}

// MaxConfigSize bounds a configuration file: a larger one is refused, not read.
const MaxConfigSize = 1 << 20

// LoadConfig reads and validates a configuration file named by the user (a symbolic link is
// followed); relative paths in it are resolved against its directory. Only a regular file of
// at most MaxConfigSize bytes is read.
func LoadConfig(path string) (*Config, error) {
	return loadConfig(path, safefile.ReadFile)
}

// LoadConfigInTree is LoadConfig for the configuration file found in a checked tree: a
// symbolic link there is refused, as a pull request could point it anywhere.
func LoadConfigInTree(path string) (*Config, error) {
	return loadConfig(path, safefile.ReadFileNoFollow)
}

func loadConfig(path string, read func(string, int64) ([]byte, error)) (*Config, error) {
	data, err := read(path, MaxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, unwrapPathError(err))
	}
	cfg, err := ParseConfig(data, path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	for i, p := range cfg.Paths {
		cfg.Paths[i] = resolveRel(dir, p)
	}
	if cfg.Baseline != "" {
		cfg.Baseline = resolveRel(dir, cfg.Baseline)
	}
	cfg.Source = path
	return cfg, nil
}

func resolveRel(dir, p string) string {
	if filepath.IsAbs(p) || dir == "." || dir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// ParseConfig reads a configuration from YAML; name is used in errors. Rule ids are checked
// against a catalog later, by Validate with a lookup.
func ParseConfig(data []byte, name string) (*Config, error) {
	cfg := &Config{}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return cfg, nil // comments only
	}
	if key, line := unknownKey(doc.Content[0], reflect.TypeFor[Config](), ""); key != "" {
		return nil, fmt.Errorf("unknown key %q in %s (line %d); known keys: %s", key, name, line, strings.Join(ConfigKeys(), ", "))
	}
	if err := doc.Content[0].Decode(cfg); err != nil {
		return nil, fmt.Errorf("config %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	cfg.dropEmpty()
	if err := cfg.Validate(nil); err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	return cfg, nil
}

// dropEmpty makes empty lists and maps nil: "include: []", as --print-config writes it,
// is the same configuration as no include at all.
func (c *Config) dropEmpty() {
	for _, l := range []*[]string{&c.Paths, &c.Include, &c.Exclude, &c.Rules.Disable} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(c.Rules.Severity) == 0 {
		c.Rules.Severity = nil
	}
}

// Validate checks values; known, when not nil, says whether a rule id exists.
func (c *Config) Validate(known func(string) bool) error {
	var errs []error
	if c.FailOn != "" {
		if _, err := scanner.ParseSeverity(c.FailOn); err != nil {
			errs = append(errs, fmt.Errorf("fail_on: %w", err))
		}
	}
	if c.MaxFileSize != "" {
		if _, err := ParseSize(c.MaxFileSize); err != nil {
			errs = append(errs, fmt.Errorf("max_file_size: %w", err))
		}
	}
	ids := append([]string{}, c.Rules.Disable...)
	for id, sev := range c.Rules.Severity {
		ids = append(ids, id)
		if _, err := scanner.ParseSeverity(sev); err != nil {
			errs = append(errs, fmt.Errorf("rules.severity.%s: %w", id, err))
		}
	}
	sort.Strings(ids)
	if known != nil {
		for _, id := range ids {
			if !known(id) {
				errs = append(errs, fmt.Errorf("rules: unknown rule id %q (see `sunset rules`)", id))
			}
		}
	}
	for _, g := range append(append([]string{}, c.Include...), c.Exclude...) {
		if _, err := filepath.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil {
			errs = append(errs, fmt.Errorf("glob %q: %w", g, err))
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// YAML renders the configuration (the effective one, for --print-config): every key, a
// size given in bytes in the largest unit that keeps it exact (5242880 as 5MiB).
func (c *Config) YAML() []byte {
	out := *c
	if n, err := strconv.ParseInt(out.MaxFileSize, 10, 64); err == nil && n > 0 {
		out.MaxFileSize = FormatSize(n)
	}
	var doc yaml.Node
	_ = doc.Encode(&out) // a Config always encodes
	quoteControls(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	_ = enc.Encode(&doc)
	_ = enc.Close()
	return escapeBidi(buf.Bytes())
}

// escapeBidi writes the controls the YAML encoder keeps as they are (it counts the
// bidirectional ones as printable) as \uXXXX escapes, which mean the same inside the
// double-quoted strings quoteControls made of every value holding one.
func escapeBidi(out []byte) []byte {
	if !bytes.ContainsFunc(out, func(r rune) bool { return r != '\n' && textsafe.IsControl(r) }) {
		return out
	}
	var b bytes.Buffer
	for _, r := range string(out) {
		if r != '\n' && textsafe.IsControl(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}

// quoteControls gives every string holding a line break or another control character
// (textsafe.IsControl) the double-quoted style, where YAML writes them as escapes (see also
// escapeBidi): a
// literal block would put a value's second line at the start of an output line, where a
// "::error ..." taken from a checked repository's .sunset.yaml reads as a CI log command.
func quoteControls(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.ContainsFunc(n.Value, textsafe.IsControl) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteControls(c)
	}
}

// MarshalJSON is the default JSON form (tests compare configurations through it).
func (c *Config) MarshalJSON() ([]byte, error) {
	type plain Config
	return json.Marshal((*plain)(c))
}

// FormatSize writes a number of bytes as ParseSize reads it: in GiB, MiB or KiB when that is
// exact, else in bytes.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseSize reads a size: bytes, or a number with a unit KB, MB, GB (powers of 1000) or KiB,
// MiB, GiB (powers of 1024), e.g. "5MiB", "500KB", "1048576".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToLower(t), strings.ToLower(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (want e.g. 5MiB, 500KB or a number of bytes)", s)
	}
	return n * mult, nil
}
