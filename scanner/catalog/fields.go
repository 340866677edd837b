package catalog

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed fields.yaml
var embeddedFields []byte

// FieldDef is one field of the Rules language.
type FieldDef struct {
	// Name is the exact dotted name, e.g. "http.request.uri.path".
	Name string `yaml:"name" json:"name"`
	// Type is one of String, Int, Bool, IP, Bytes, or Array<T> / Map<T> of those, e.g.
	// "Map<Array<String>>" for http.request.headers.
	Type string `yaml:"type" json:"type"`
	// Plan is the minimum plan: "" (all plans), "pro", "business" or "enterprise".
	Plan string `yaml:"plan,omitempty" json:"plan,omitempty"`
	// Phases lists the only phases the field can be used in; nil means every phase.
	Phases []string `yaml:"phases,omitempty" json:"phases,omitempty"`
	// Deprecated fields still parse but should be replaced (RenamedTo) or are meaningless now.
	Deprecated bool `yaml:"deprecated,omitempty" json:"deprecated,omitempty"`
	// RenamedTo is the current name of a deprecated field name.
	RenamedTo string `yaml:"renamed_to,omitempty" json:"renamed_to,omitempty"`
	Note      string `yaml:"note,omitempty" json:"note,omitempty"`
}

// FuncDef is one function of the Rules language.
type FuncDef struct {
	Name string `yaml:"name" json:"name"`
	// Params are the parameter types in order; a parameter that takes several types lists them
	// with "|", e.g. "String|Bytes"; "Array<Any>" takes an array of any element type.
	Params []string `yaml:"params" json:"params"`
	// Optional is how many trailing Params may be left out.
	Optional int `yaml:"optional,omitempty" json:"optional,omitempty"`
	// Variadic means the last parameter may repeat.
	Variadic bool   `yaml:"variadic,omitempty" json:"variadic,omitempty"`
	Returns  string `yaml:"returns" json:"returns"`
	// CustomRules is false for functions only allowed in transform and redirect rules.
	CustomRules bool   `yaml:"custom_rules" json:"custom_rules"`
	Plan        string `yaml:"plan,omitempty" json:"plan,omitempty"`
	Note        string `yaml:"note,omitempty" json:"note,omitempty"`
}

// MinArgs is the fewest arguments a call may pass.
func (f FuncDef) MinArgs() int { return len(f.Params) - f.Optional }

// MaxArgs is the most arguments a call may pass, -1 for variadic functions.
func (f FuncDef) MaxArgs() int {
	if f.Variadic {
		return -1
	}
	return len(f.Params)
}

// OperatorDef is one operator of the Rules language: its English name and C-like symbol.
type OperatorDef struct {
	Name string `yaml:"name" json:"name"` // e.g. "eq", "matches", "strict wildcard"
	// Symbol is the C-like spelling, "" when there is none (contains, wildcard).
	Symbol string `yaml:"symbol,omitempty" json:"symbol,omitempty"`
	// Kind is "comparison" or "logical".
	Kind string `yaml:"kind" json:"kind"`
	// Types are the field types a comparison operator applies to; nil for logical operators.
	Types []string `yaml:"types,omitempty" json:"types,omitempty"`
	Plan  string   `yaml:"plan,omitempty" json:"plan,omitempty"`
	Note  string   `yaml:"note,omitempty" json:"note,omitempty"`
}

// FieldCatalog is the Rules language's fields, functions and operators (fields.yaml).
type FieldCatalog struct {
	fields    []FieldDef
	functions []FuncDef
	operators []OperatorDef
	fieldIdx  map[string]int
	funcIdx   map[string]int
	opIdx     map[string]int // by name and by symbol
}

type fieldsFile struct {
	Fields    []FieldDef    `yaml:"fields"`
	Functions []FuncDef     `yaml:"functions"`
	Operators []OperatorDef `yaml:"operators"`
}

var defaultFields = sync.OnceValues(func() (*FieldCatalog, error) {
	return ParseFields(embeddedFields, "fields.yaml")
})

// Fields returns the embedded field catalogue; it panics only if the embedded data is invalid,
// which a test guards against.
func Fields() *FieldCatalog {
	f, err := defaultFields()
	if err != nil {
		panic("catalog: embedded fields.yaml is invalid: " + err.Error())
	}
	return f
}

// ParseFields reads and validates a field catalogue in the fields.yaml format; unknown keys
// are errors, and errors name the file and the line.
func ParseFields(data []byte, name string) (*FieldCatalog, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f fieldsFile
	if err := dec.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				if sub := lineRef.FindStringSubmatch(m); sub != nil {
					m = fmt.Sprintf("%s:%s: %s", name, sub[1], explainDecode(sub[2]))
				}
				msgs[i] = m
			}
			return nil, errors.New(strings.Join(msgs, "\n"))
		}
		return nil, yamlSyntaxError(name, err)
	}
	fc := &FieldCatalog{fields: f.Fields, functions: f.Functions, operators: f.Operators}
	if err := fc.index(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return fc, nil
}

var (
	fieldNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$`)
	funcNamePattern  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	baseTypes        = []string{"Bool", "Bytes", "IP", "Int", "String"}
	plans            = []string{"", "pro", "business", "enterprise"}
)

// validType reports whether t is a base type or Array<T>/Map<T> of a valid type; allowAny
// also admits "Any" (function signatures only).
func validType(t string, allowAny bool) bool {
	switch {
	case slices.Contains(baseTypes, t):
		return true
	case allowAny && t == "Any":
		return true
	case strings.HasPrefix(t, "Array<") && strings.HasSuffix(t, ">"):
		return validType(t[len("Array<"):len(t)-1], allowAny)
	case strings.HasPrefix(t, "Map<") && strings.HasSuffix(t, ">"):
		return validType(t[len("Map<"):len(t)-1], allowAny)
	}
	return false
}

// validAlternatives checks "String|Bytes"-style parameter types.
func validAlternatives(t string) bool {
	for _, alt := range strings.Split(t, "|") {
		if !validType(alt, true) {
			return false
		}
	}
	return true
}

// index validates the catalogue, sorts it by name and builds the lookup maps. Every problem
// is reported, in catalogue order (fields, renames, functions, operators), so one load
// shows all that needs fixing.
func (fc *FieldCatalog) index() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	slices.SortFunc(fc.fields, func(a, b FieldDef) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(fc.functions, func(a, b FuncDef) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(fc.operators, func(a, b OperatorDef) int { return strings.Compare(a.Name, b.Name) })
	fc.indexFields(bad)
	fc.checkRenames(bad)
	fc.indexFunctions(bad)
	fc.indexOperators(bad)
	return errors.Join(errs...)
}

// indexFields builds the field index and checks each field on its own: name, type, plan,
// and that a rename is marked deprecated.
func (fc *FieldCatalog) indexFields(bad func(format string, args ...any)) {
	fc.fieldIdx = map[string]int{}
	for i, f := range fc.fields {
		if !fieldNamePattern.MatchString(f.Name) {
			bad("field %q: name must be dotted lowercase, e.g. http.request.uri.path", f.Name)
		}
		if _, dup := fc.fieldIdx[f.Name]; dup {
			bad("field %q is listed twice", f.Name)
		}
		fc.fieldIdx[f.Name] = i
		if !validType(f.Type, false) {
			bad("field %q: type %q is not one of %s or Array<T>/Map<T> of them", f.Name, f.Type, strings.Join(baseTypes, ", "))
		}
		if !slices.Contains(plans, f.Plan) {
			bad("field %q: plan %q must be empty, pro, business or enterprise", f.Name, f.Plan)
		}
		if f.RenamedTo != "" && !f.Deprecated {
			bad("field %q: renamed_to needs deprecated: true", f.Name)
		}
	}
}

// checkRenames checks each renamed_to against the whole field index (built first): the new
// name must exist, keep the type and not be deprecated itself, or a migration would lead
// nowhere.
func (fc *FieldCatalog) checkRenames(bad func(format string, args ...any)) {
	for _, f := range fc.fields {
		if f.RenamedTo == "" {
			continue
		}
		to, ok := fc.fieldIdx[f.RenamedTo]
		switch {
		case !ok:
			bad("field %q: renamed_to %q is not a field of the catalogue", f.Name, f.RenamedTo)
		case fc.fields[to].Type != f.Type:
			bad("field %q: type %s differs from %s of its new name %q", f.Name, f.Type, fc.fields[to].Type, f.RenamedTo)
		case fc.fields[to].Deprecated:
			bad("field %q: renamed to %q, which is deprecated itself", f.Name, f.RenamedTo)
		}
	}
}

// indexFunctions builds the function index and checks each signature: name, parameter and
// return types, the optional count and the plan.
func (fc *FieldCatalog) indexFunctions(bad func(format string, args ...any)) {
	fc.funcIdx = map[string]int{}
	for i, f := range fc.functions {
		if !funcNamePattern.MatchString(f.Name) {
			bad("function %q: name must be lowercase with underscores", f.Name)
		}
		if _, dup := fc.funcIdx[f.Name]; dup {
			bad("function %q is listed twice", f.Name)
		}
		fc.funcIdx[f.Name] = i
		if len(f.Params) == 0 {
			bad("function %q: params is empty", f.Name)
		}
		for _, p := range f.Params {
			if !validAlternatives(p) {
				bad("function %q: parameter type %q is not valid", f.Name, p)
			}
		}
		if !validAlternatives(f.Returns) {
			bad("function %q: return type %q is not valid", f.Name, f.Returns)
		}
		if f.Optional < 0 || f.Optional > len(f.Params) {
			bad("function %q: optional %d out of range 0..%d", f.Name, f.Optional, len(f.Params))
		}
		if !slices.Contains(plans, f.Plan) {
			bad("function %q: plan %q must be empty, pro, business or enterprise", f.Name, f.Plan)
		}
	}
}

// indexOperators builds the operator index, under both the English name and the symbol (a
// rule may use either), and checks kind, operand types and plan.
func (fc *FieldCatalog) indexOperators(bad func(format string, args ...any)) {
	fc.opIdx = map[string]int{}
	for i, o := range fc.operators {
		for _, key := range []string{o.Name, o.Symbol} {
			if key == "" {
				continue
			}
			if _, dup := fc.opIdx[key]; dup {
				bad("operator %q is listed twice", key)
			}
			fc.opIdx[key] = i
		}
		if o.Kind != "comparison" && o.Kind != "logical" {
			bad("operator %q: kind %q must be comparison or logical", o.Name, o.Kind)
		}
		for _, t := range o.Types {
			if !validType(t, false) {
				bad("operator %q: type %q is not valid", o.Name, t)
			}
		}
		if !slices.Contains(plans, o.Plan) {
			bad("operator %q: plan %q must be empty, pro, business or enterprise", o.Name, o.Plan)
		}
	}
}

// Field returns the field with exactly this name, e.g. "http.request.uri.path".
func (fc *FieldCatalog) Field(name string) (FieldDef, bool) {
	i, ok := fc.fieldIdx[name]
	if !ok {
		return FieldDef{}, false
	}
	return cloneField(fc.fields[i]), true
}

// Function returns the function with this name, e.g. "lower".
func (fc *FieldCatalog) Function(name string) (FuncDef, bool) {
	i, ok := fc.funcIdx[name]
	if !ok {
		return FuncDef{}, false
	}
	return cloneFunc(fc.functions[i]), true
}

// Operator returns the operator with this English name or symbol, e.g. "matches" or "~".
func (fc *FieldCatalog) Operator(nameOrSymbol string) (OperatorDef, bool) {
	i, ok := fc.opIdx[nameOrSymbol]
	if !ok {
		return OperatorDef{}, false
	}
	o := fc.operators[i]
	o.Types = slices.Clone(o.Types)
	return o, true
}

// All returns every field, sorted by name.
func (fc *FieldCatalog) All() []FieldDef {
	out := make([]FieldDef, len(fc.fields))
	for i, f := range fc.fields {
		out[i] = cloneField(f)
	}
	return out
}

// Functions returns every function, sorted by name.
func (fc *FieldCatalog) Functions() []FuncDef {
	out := make([]FuncDef, len(fc.functions))
	for i, f := range fc.functions {
		out[i] = cloneFunc(f)
	}
	return out
}

// Operators returns every operator, sorted by name.
func (fc *FieldCatalog) Operators() []OperatorDef {
	out := make([]OperatorDef, len(fc.operators))
	for i, o := range fc.operators {
		o.Types = slices.Clone(o.Types)
		out[i] = o
	}
	return out
}

// AllowedInPhase reports whether the field may be used in a rule of the given phase, e.g.
// "http_request_firewall_custom".
func (f FieldDef) AllowedInPhase(phase string) bool {
	return len(f.Phases) == 0 || slices.Contains(f.Phases, phase)
}

// PlanAtLeast reports whether plan (a zone's plan.legacy_id: free, pro, business, enterprise)
// meets the minimum ("" = all plans). An unknown plan meets only the "" minimum.
func PlanAtLeast(plan, minimum string) bool {
	rank := func(p string) int {
		switch strings.ToLower(p) {
		case "", "free":
			return 0
		case "pro":
			return 1
		case "business":
			return 2
		case "enterprise":
			return 3
		}
		return -1
	}
	m := rank(minimum)
	if m <= 0 {
		return true
	}
	return rank(plan) >= m
}

func cloneField(f FieldDef) FieldDef {
	f.Phases = slices.Clone(f.Phases)
	return f
}

func cloneFunc(f FuncDef) FuncDef {
	f.Params = slices.Clone(f.Params)
	return f
}
