package catalog

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"gopkg.in/yaml.v3"
)

// embeddedName is the file name errors about the embedded catalog carry.
const embeddedName = "deprecations.yaml"

//go:embed deprecations.yaml
var embeddedDeprecations []byte

// Catalog is an immutable, validated set of entries. The dates in effect are those of one
// source, "spec" (the default) or "notice" (see WithDates).
type Catalog struct {
	base    []Entry // as authored, sorted by id
	dates   string
	entries []Entry // effective (dates applied), sorted by id
	byID    map[vocab.RuleID]int
	routes  map[int][]route
}

var defaultCatalog = sync.OnceValues(func() (*Catalog, error) {
	entries, err := parseEmbedded(embeddedDeprecations, embeddedName)
	if err != nil {
		return nil, err
	}
	return assemble(entries, DatesSpec), nil
})

// parseEmbedded reads the embedded catalog as Parse does, but with one YAML parse (its
// entries decoded from the node tree) and without validating: strict decoding and
// validation only repeat, in every run, work on data fixed at build time, which
// TestEmbeddedCatalogIsValid does once (Parse and New give the same catalog, and accept it).
func parseEmbedded(data []byte, name string) ([]Entry, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlSyntaxError(name, err)
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	items, _, err := entryItems(doc, name)
	if err != nil {
		return nil, err
	}
	entries, err := decodeList(doc.Decode, doc.Kind == yaml.SequenceNode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(entries) != len(items) {
		return nil, fmt.Errorf("%s: read %d entries from %d list items", name, len(entries), len(items))
	}
	for i := range entries {
		entries[i].Origin = fmt.Sprintf("%s:%d", name, items[i].Line)
	}
	return entries, nil
}

// Default returns the embedded catalog (deprecations.yaml) with the spec's dates. It panics
// only if the embedded data is invalid, which a test guards against. Every call returns the same
// immutable catalog.
func Default() *Catalog {
	c, err := defaultCatalog()
	if err != nil {
		panic("catalog: embedded deprecations.yaml is invalid: " + err.Error())
	}
	return c
}

// New builds a catalog (spec dates) from entries, validating them.
func New(entries []Entry) (*Catalog, error) {
	return build(entries, DatesSpec)
}

func build(entries []Entry, dates string) (*Catalog, error) {
	if err := Validate(entries); err != nil {
		return nil, err
	}
	return assemble(entries, dates), nil
}

// assemble builds a catalog of valid entries.
func assemble(entries []Entry, dates string) *Catalog {
	c := &Catalog{dates: dates, byID: make(map[vocab.RuleID]int, len(entries))}
	c.base = make([]Entry, len(entries))
	for i, e := range entries {
		c.base[i] = e.clone()
	}
	slices.SortFunc(c.base, func(a, b Entry) int { return strings.Compare(string(a.ID), string(b.ID)) })
	c.entries = make([]Entry, len(c.base))
	for i, e := range c.base {
		c.entries[i] = e.withDates(dates)
		c.byID[e.ID] = i
	}
	c.routes = compileRoutes(c.entries)
	return c
}

// withDates returns e with the dates of source in effect.
func (e Entry) withDates(source string) Entry {
	e = e.clone()
	if source != DatesNotice || e.Notice == nil {
		return e
	}
	if !e.Notice.DeprecatedOn.IsZero() {
		e.DeprecatedOn = e.Notice.DeprecatedOn
	}
	if !e.Notice.EndOfLife.IsZero() {
		e.EndOfLife = e.Notice.EndOfLife
	}
	e.DateSource = DatesNotice
	return e
}

// WithDates returns the catalog with the dates of source in effect: "spec" (or "") for the
// spec's dates, "notice" for those of the latest public notice where an entry has one.
func (c *Catalog) WithDates(source string) (*Catalog, error) {
	switch source {
	case "", DatesSpec:
		source = DatesSpec
	case DatesNotice:
	default:
		return nil, fmt.Errorf("unknown date source %q: use \"spec\" or \"notice\"", source)
	}
	if source == c.dates {
		return c, nil
	}
	return build(c.base, source)
}

// Dates returns the date source in effect, "spec" or "notice".
func (c *Catalog) Dates() string { return c.dates }

// Entries returns copies of all entries, sorted by id.
func (c *Catalog) Entries() []Entry {
	out := make([]Entry, len(c.entries))
	for i, e := range c.entries {
		out[i] = e.clone()
	}
	return out
}

// Lookup returns a copy of the entry with the given id.
func (c *Catalog) Lookup(id vocab.RuleID) (Entry, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Entry{}, false
	}
	return c.entries[i].clone(), true
}

// Merge returns a new catalog with user entries added. An entry whose id exists already
// replaces it only with `override: true`; otherwise the error names both origins. An entry with
// `override: true` and no entry to replace is an error too (most likely a misspelt id).
func (c *Catalog) Merge(user []Entry) (*Catalog, error) {
	merged := slices.Clone(c.base)
	var errs []error
	seen := map[vocab.RuleID]Entry{}
	for _, u := range user {
		if prev, dup := seen[u.ID]; dup {
			errs = append(errs, fmt.Errorf("entry %q is defined twice (%s and %s): keep one", u.ID, originOr(prev), originOr(u)))
			continue
		}
		seen[u.ID] = u
		i, exists := c.byID[u.ID]
		switch {
		case exists && !u.Override:
			errs = append(errs, fmt.Errorf("entry %q (%s) duplicates the entry of the same id (%s): add `override: true` to replace it, or choose another id",
				u.ID, originOr(u), originOr(c.base[i])))
		case exists:
			merged[i] = u
		case u.Override:
			errs = append(errs, fmt.Errorf("entry %q (%s) has `override: true` but there is no entry with that id to override: fix the id, or remove `override: true` to add a new entry",
				u.ID, originOr(u)))
		default:
			merged = append(merged, u)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return build(merged, c.dates)
}

// catalogFile is the document form with a top-level `entries:` key; a bare list of entries
// is accepted too.
type catalogFile struct {
	Entries []Entry `yaml:"entries"`
}

var lineRef = regexp.MustCompile(`^line (\d+): (.*)$`)

// Parse reads entries from YAML: either a list of entries or a mapping with `entries:`.
// Unknown keys are errors. Every error names the file, the line and the entry id and says what
// to fix; all problems of the file are reported together. Entries are validated one by one
// (ids unique within the file); Merge checks them against a catalog.
func Parse(data []byte, name string) ([]Entry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlSyntaxError(name, err)
	}
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = *doc.Content[0]
	}
	items, end, err := entryItems(&doc, name)
	if err != nil {
		return nil, err
	}
	loc := locator{name: name, items: items, end: end}
	entries, err := decodeEntries(data, doc.Kind == yaml.SequenceNode, loc)
	if err != nil {
		return nil, err
	}
	if len(entries) != len(items) {
		// Cannot happen with a successful decode; guard so locations stay right.
		return nil, fmt.Errorf("%s: read %d entries from %d list items", name, len(entries), len(items))
	}
	if err := checkEntries(name, entries, items); err != nil {
		return nil, err
	}
	return entries, nil
}

// entryItems finds the list of entries in the document node: the document itself, or the
// value of its `entries:` key. It also returns the first line after that list (0 when the list
// runs to the end), so a decode error on a later key is not blamed on the last entry.
func entryItems(doc *yaml.Node, name string) (items []*yaml.Node, end int, err error) {
	switch doc.Kind {
	case yaml.SequenceNode:
		return doc.Content, 0, nil
	case yaml.MappingNode:
		v := mappingValue(doc, "entries")
		if v == nil {
			return nil, 0, nil
		}
		if v.Kind != yaml.SequenceNode {
			return nil, 0, fmt.Errorf("%s:%d: `entries` must be a list of entries (each starting with \"- id: ...\")", name, v.Line)
		}
		for i := 0; i+1 < len(doc.Content); i += 2 {
			if k := doc.Content[i]; k.Line > v.Line && (end == 0 || k.Line < end) {
				end = k.Line
			}
		}
		return v.Content, end, nil
	default:
		return nil, 0, fmt.Errorf("%s:%d: expected a list of entries, or a mapping with `entries:`", name, doc.Line)
	}
}

// decodeEntries decodes the file strictly (unknown keys are errors, which loc places at an
// entry) and refuses a second YAML document, whose entries would otherwise be ignored
// silently.
func decodeEntries(data []byte, list bool, loc locator) ([]Entry, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	entries, err := decodeList(dec.Decode, list)
	if err != nil {
		return nil, loc.decodeError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%s:%d: only one YAML document is allowed (remove the \"---\" and what follows, or merge the documents)", loc.name, extra.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlSyntaxError(loc.name, err)
	}
	return entries, nil
}

// decodeList decodes entries with decode: a list of them, or a mapping with `entries:`.
func decodeList(decode func(any) error, list bool) ([]Entry, error) {
	if list {
		var entries []Entry
		err := decode(&entries)
		return entries, err
	}
	var f catalogFile
	err := decode(&f)
	return f.Entries, err
}

// checkEntries sets each entry's Origin and validates it, placing every problem on the line
// of the key it is about, and reports ids used twice within the file.
func checkEntries(name string, entries []Entry, items []*yaml.Node) error {
	var errs []error
	firstLine := map[vocab.RuleID]int{}
	for i := range entries {
		item := items[i]
		entries[i].Origin = fmt.Sprintf("%s:%d", name, item.Line)
		e := entries[i]
		for _, p := range e.problems() {
			line := item.Line
			if v := mappingKey(item, p.key); v != nil {
				line = v.Line
			}
			errs = append(errs, fmt.Errorf("%s:%d: entry %q: %s", name, line, e.ID, p.msg))
		}
		if e.ID == "" {
			continue
		}
		if prev, dup := firstLine[e.ID]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: entry %q: duplicate id, first defined at %s:%d: ids must be unique", name, item.Line, e.ID, name, prev))
		} else {
			firstLine[e.ID] = item.Line
		}
	}
	return errors.Join(errs...)
}

// locator maps a line of a file to the entry that holds it.
type locator struct {
	name  string
	items []*yaml.Node
	end   int // first line after the list (a later top-level key), 0 if none
}

// entryAt returns the id of the list item holding line ("" when it has no id), and false
// when the line is outside every entry.
func (l locator) entryAt(line int) (string, bool) {
	if l.end > 0 && line >= l.end {
		return "", false
	}
	i := sort.Search(len(l.items), func(i int) bool { return l.items[i].Line > line }) - 1
	if i < 0 {
		return "", false
	}
	id := ""
	if v := mappingValue(l.items[i], "id"); v != nil {
		id = v.Value
	}
	return id, true
}

func (l locator) at(line int, msg string) error {
	if id, ok := l.entryAt(line); ok {
		if id == "" {
			return fmt.Errorf("%s:%d: entry without id: %s", l.name, line, msg)
		}
		return fmt.Errorf("%s:%d: entry %q: %s", l.name, line, id, msg)
	}
	return fmt.Errorf("%s:%d: %s", l.name, line, msg)
}

// decodeError rewrites yaml.v3's decode errors ("line 7: field foo not found in type
// catalog.Entry") to name the file, the line and the entry, with a hint.
func (l locator) decodeError(err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var errs []error
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		sub := lineRef.FindStringSubmatch(m)
		if sub == nil {
			errs = append(errs, fmt.Errorf("%s: %s", l.name, m))
			continue
		}
		line, _ := strconv.Atoi(sub[1])
		errs = append(errs, l.at(line, explainDecode(sub[2])))
	}
	return errors.Join(errs...)
}

var (
	unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
	cannotDecode = regexp.MustCompile("^cannot unmarshal (\\S+)(?: `(.*)`)? into (\\S+)$")
)

// explainDecode turns a yaml.v3 message into one that says what to fix.
func explainDecode(m string) string {
	if sub := unknownField.FindStringSubmatch(m); sub != nil {
		keys := knownKeys[strings.TrimPrefix(sub[2], "catalog.")]
		if len(keys) == 0 {
			return fmt.Sprintf("unknown key %q", sub[1])
		}
		return fmt.Sprintf("unknown key %q (a typo? known keys here: %s)", sub[1], strings.Join(keys, ", "))
	}
	if sub := cannotDecode.FindStringSubmatch(m); sub != nil {
		want := strings.TrimPrefix(sub[3], "catalog.")
		switch want {
		case "[]string":
			want = "a list of strings"
		case "bool":
			want = "true or false"
		case "[]catalog.Endpoint", "[]catalog.FieldRef", "[]catalog.Entry":
			want = "a list"
		default:
			want = "a " + strings.TrimPrefix(want, "[]catalog.")
		}
		if sub[2] != "" {
			return fmt.Sprintf("%q cannot be read here: expected %s", sub[2], want)
		}
		got := strings.TrimPrefix(sub[1], "!!")
		hint := ""
		if got == "map" && want == "a string" {
			hint = " (a text containing \": \" must be quoted)"
		}
		return fmt.Sprintf("a %s cannot be read here: expected %s%s", got, want, hint)
	}
	return m
}

// knownKeys lists the YAML keys of each decoded type, for "unknown key" hints.
var knownKeys = func() map[string][]string {
	out := map[string][]string{}
	for _, v := range []any{Entry{}, Match{}, Endpoint{}, FieldRef{}, Terraform{}, NoticeDates{}, catalogFile{}, FieldDef{}, FuncDef{}, OperatorDef{}, fieldsFile{}} {
		t := reflect.TypeOf(v)
		var keys []string
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if tag != "" && tag != "-" {
				keys = append(keys, tag)
			}
		}
		slices.Sort(keys)
		out[t.Name()] = keys
	}
	return out
}()

// yamlSyntaxError rewrites "yaml: line 3: did not find expected key" as
// "NAME:3: invalid YAML: did not find expected key (hint)".
func yamlSyntaxError(name string, err error) error {
	m := strings.TrimPrefix(err.Error(), "yaml: ")
	hint := " (check indentation, quoting and the \"- \" of list items)"
	if strings.Contains(m, "mapping values are not allowed") {
		hint = " (a value containing \": \" must be quoted)"
	}
	if sub := lineRef.FindStringSubmatch(m); sub != nil {
		return fmt.Errorf("%s:%s: invalid YAML: %s%s", name, sub[1], sub[2], hint)
	}
	return fmt.Errorf("%s: invalid YAML: %s%s", name, m, hint)
}

// mappingValue returns the value node of key in a mapping node, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mappingKey returns the key node of key in a mapping node, or nil.
func mappingKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// clone deep-copies e so callers cannot change a catalog through returned slices.
func (e Entry) clone() Entry {
	if e.Notice != nil {
		n := *e.Notice
		e.Notice = &n
	}
	e.Notes = slices.Clone(e.Notes)
	m := e.Match
	if m.Endpoints != nil {
		eps := make([]Endpoint, len(m.Endpoints))
		for i, ep := range m.Endpoints {
			eps[i] = cloneEndpoint(ep)
		}
		m.Endpoints = eps
	}
	m.Objects = slices.Clone(m.Objects)
	m.Fields = slices.Clone(m.Fields)
	m.Settings = slices.Clone(m.Settings)
	m.ExpressionFields = slices.Clone(m.ExpressionFields)
	m.Terraform.Resources = slices.Clone(m.Terraform.Resources)
	m.Terraform.Attributes = slices.Clone(m.Terraform.Attributes)
	m.Text = slices.Clone(m.Text)
	e.Match = m
	return e
}

func cloneEndpoint(ep Endpoint) Endpoint {
	ep.Methods = slices.Clone(ep.Methods)
	return ep
}
