package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Violation is one way a body breaks its schema.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer of the offending member ("" is the whole body); for
	// a missing required member it points where the member should be.
	Pointer string `json:"pointer"`
	// Rule is the schema keyword broken: required, enum, type, pattern, oneOf, minLength, ...
	Rule string `json:"rule"`
	// Message says what is wrong without quoting the value (bodies may hold secrets).
	Message string `json:"message"`
}

// String renders the violation as "POINTER: MESSAGE (RULE)".
func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "(body)"
	}
	return fmt.Sprintf("%s: %s (%s)", p, v.Message, v.Rule)
}

// ValidationError is a body that breaks its operation's schema.
type ValidationError struct {
	// Operation is the operation the body was checked against.
	Operation *Operation
	// Status is the response status checked, 0 for a request body.
	Status int
	// Violations are sorted by pointer then rule, without duplicates.
	Violations []Violation
}

// Error lists every violation on one line.
func (e *ValidationError) Error() string {
	what := "request body"
	if e.Status != 0 {
		what = fmt.Sprintf("response body (status %d)", e.Status)
	}
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("%s %s: %s", e.Operation, what, strings.Join(parts, "; "))
}

// ValidateRequest checks a JSON request body against the request body schema of the
// operation for method and path. An empty body passes when the operation does not require
// one; an operation without a JSON schema accepts any body. The error is a *ValidationError,
// or wraps ErrNoOperation when the document does not describe the operation.
func (d *Doc) ValidateRequest(method, path string, body []byte) error {
	op, err := d.Operation(method, path)
	if err != nil {
		return err
	}
	rb := op.op.RequestBody
	if len(bytes.TrimSpace(body)) == 0 {
		if rb != nil && rb.Value != nil && rb.Value.Required {
			return &ValidationError{Operation: op, Violations: []Violation{{Rule: "requestBody", Message: "a request body is required"}}}
		}
		return nil
	}
	schema := requestSchema(op.op)
	if schema == nil {
		return nil
	}
	return validate(op, 0, schema, body, openapi3.VisitAsRequest(), openapi3.DisableReadOnlyValidation())
}

// ValidateResponse checks a JSON response body against the schema of the operation's response
// for status: the exact code, else its class (2XX), else default. A status the operation does
// not describe is a violation; a response without a JSON schema accepts any body.
func (d *Doc) ValidateResponse(method, path string, status int, body []byte) error {
	op, err := d.Operation(method, path)
	if err != nil {
		return err
	}
	resp := findResponse(op.op, status)
	if resp == nil {
		return &ValidationError{Operation: op, Status: status, Violations: []Violation{{Rule: "responses", Message: fmt.Sprintf("the operation describes no response for status %d", status)}}}
	}
	schema := jsonSchema(resp.Content)
	if schema == nil {
		return nil
	}
	return validate(op, status, schema, body, openapi3.VisitAsResponse())
}

// requestSchema is the operation's JSON request body schema, or nil.
func requestSchema(op *openapi3.Operation) *openapi3.Schema {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	return jsonSchema(op.RequestBody.Value.Content)
}

// jsonSchema is the schema of the application/json media type, or nil.
func jsonSchema(c openapi3.Content) *openapi3.Schema {
	mt := c.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// findResponse picks the response of a status: exact, class ("2XX", any case), default.
func findResponse(op *openapi3.Operation, status int) *openapi3.Response {
	if op.Responses == nil {
		return nil
	}
	code := strconv.Itoa(status)
	class := code[:1] + "XX"
	for _, key := range []string{code, class, strings.ToLower(class), "default"} {
		if r := op.Responses.Value(key); r != nil && r.Value != nil {
			return r.Value
		}
	}
	return nil
}

// validate decodes body and checks it against schema, collecting every violation.
func validate(op *Operation, status int, schema *openapi3.Schema, body []byte, opts ...openapi3.SchemaValidationOption) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return &ValidationError{Operation: op, Status: status, Violations: []Violation{{Rule: "json", Message: "the body is not valid JSON: " + err.Error()}}}
	}
	w := walker{opts: append(opts, openapi3.MultiErrors(), openapi3.SetSchemaErrorMessageCustomizer(reasonOnly))}
	err := schema.VisitJSON(v, w.opts...)
	if err == nil {
		return nil
	}
	return &ValidationError{Operation: op, Status: status, Violations: w.violations(err)}
}

// reasonOnly keeps the schema and the value out of error texts.
func reasonOnly(e *openapi3.SchemaError) string { return e.Reason }

// leaf is a violation with the allowed values of a broken enum, for merging alternatives.
type leaf struct {
	Violation
	enum []any
}

// walker flattens the library's error tree into leaf violations.
type walker struct {
	opts []openapi3.SchemaValidationOption
}

// violations returns the leaves of err, sorted by pointer then rule, without duplicates.
func (w walker) violations(err error) []Violation {
	seen := map[Violation]bool{}
	var out []Violation
	for _, l := range w.leaves(err, nil) {
		if !seen[l.Violation] {
			seen[l.Violation] = true
			out = append(out, l.Violation)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	return out
}

// leaves walks one error: an allOf failure is reported through the parts that failed, a oneOf
// or anyOf failure through its closest alternative (see alternatives); prefix is the path of
// the value the error was found under, for errors of a re-validated alternative.
func (w walker) leaves(err error, prefix []string) []leaf {
	var se *openapi3.SchemaError
	if !errors.As(err, &se) || !isSchemaError(err) {
		var me openapi3.MultiError
		if errors.As(err, &me) {
			var out []leaf
			for _, e := range me {
				out = append(out, w.leaves(e, prefix)...)
			}
			return out
		}
		return []leaf{{Violation: Violation{Pointer: pointer(prefix), Rule: "schema", Message: err.Error()}}}
	}
	path := append(append([]string(nil), prefix...), se.JSONPointer()...)
	switch se.SchemaField {
	case "allOf":
		var me openapi3.MultiError
		if errors.As(se.Origin, &me) {
			return w.leaves(me, prefix)
		}
	case "oneOf", "anyOf":
		if out := w.alternatives(se, path); out != nil {
			return out
		}
	case "discriminator":
		if d := se.Schema.Discriminator; d != nil {
			names := make([]string, 0, len(d.Mapping))
			for k := range d.Mapping {
				names = append(names, k)
			}
			sort.Strings(names)
			msg := fmt.Sprintf("%s; want one of %s", se.Reason, strings.Join(names, ", "))
			if len(names) == 0 {
				msg = se.Reason
			}
			return []leaf{{Violation: Violation{Pointer: pointer(append(path, d.PropertyName)), Rule: "discriminator", Message: msg}}}
		}
	}
	return []leaf{{Violation: Violation{Pointer: pointer(path), Rule: se.SchemaField, Message: se.Reason}, enum: enumOf(se)}}
}

// enumOf returns the allowed values of a broken enum.
func enumOf(se *openapi3.SchemaError) []any {
	if se.SchemaField != "enum" || se.Schema == nil {
		return nil
	}
	return se.Schema.Enum
}

// alternatives explains a oneOf or anyOf failure by re-validating the value against each
// alternative (only the one a discriminator names, when it names one). The closest
// alternative is reported: one whose constant tag (a single-value enum such as a record's
// "type") fits beats one whose tag does not, then fewer violations win. When several tie and
// every alternative refuses the same member by enum, one enum violation lists every allowed
// value; else the violations all tied ones share are reported; else, when the tied ones each
// break one rule at the same member, one violation names their reasons; otherwise nil (the
// caller reports the failure itself).
func (w walker) alternatives(se *openapi3.SchemaError, path []string) []leaf {
	alts := se.Schema.OneOf
	if se.SchemaField == "anyOf" {
		alts = se.Schema.AnyOf
	}
	chosen := discriminated(se)
	var all, best [][]leaf
	for _, alt := range alts {
		if alt == nil || alt.Value == nil || (chosen != "" && alt.Ref != chosen) {
			continue
		}
		err := alt.Value.VisitJSON(se.Value, w.opts...)
		if err == nil {
			return nil // several alternatives match: report the failure itself
		}
		ls := w.leaves(err, path)
		all = append(all, ls)
		switch {
		case len(best) == 0 || closer(ls, best[0]):
			best = [][]leaf{ls}
		case !closer(best[0], ls):
			best = append(best, ls)
		}
	}
	if len(best) == 1 {
		return best[0]
	}
	if merged := mergeEnums(all); merged != nil {
		return merged
	}
	if common := commonLeaves(best); common != nil {
		return common
	}
	return sameMember(best, se)
}

// commonLeaves returns the violations every tied alternative has (a member all of them
// require, say); nil when they share none.
func commonLeaves(alts [][]leaf) []leaf {
	if len(alts) == 0 {
		return nil
	}
	var out []leaf
	for _, l := range alts[0] {
		shared := true
		for _, alt := range alts[1:] {
			shared = shared && slices.ContainsFunc(alt, func(o leaf) bool { return o.Violation == l.Violation })
		}
		if shared {
			out = append(out, l)
		}
	}
	return out
}

// closer reports whether alternative a explains a failure better than b: a tag that fits
// first, then fewer violations.
func closer(a, b []leaf) bool {
	if ta, tb := tagMismatch(a), tagMismatch(b); ta != tb {
		return !ta
	}
	return len(a) < len(b)
}

// tagMismatch reports whether a value breaks a single-value enum (a constant tag).
func tagMismatch(ls []leaf) bool {
	for _, l := range ls {
		if l.Rule == "enum" && len(l.enum) == 1 {
			return true
		}
	}
	return false
}

// sameMember joins tied alternatives that each break one rule at the same member into one
// violation of the oneOf or anyOf; nil when they do not.
func sameMember(alts [][]leaf, se *openapi3.SchemaError) []leaf {
	if len(alts) == 0 {
		return nil
	}
	var reasons []string
	for _, alt := range alts {
		if len(alt) != 1 || alt[0].Pointer != alts[0][0].Pointer {
			return nil
		}
		reasons = append(reasons, alt[0].Message)
	}
	msg := fmt.Sprintf("%s: %s", se.Reason, strings.Join(reasons, ", or "))
	return []leaf{{Violation: Violation{Pointer: alts[0][0].Pointer, Rule: se.SchemaField, Message: msg}}}
}

// discriminated is the reference the discriminator of a failed oneOf or anyOf maps the
// value to, or "" when there is none.
func discriminated(se *openapi3.SchemaError) string {
	d := se.Schema.Discriminator
	obj, isObj := se.Value.(map[string]any)
	if d == nil || !isObj {
		return ""
	}
	tag, _ := obj[d.PropertyName].(string)
	return d.Mapping[tag].Ref
}

// mergeEnums finds a pointer where every alternative breaks an enum and lists the union of
// their allowed values there; nil when there is none.
func mergeEnums(alts [][]leaf) []leaf {
	if len(alts) == 0 {
		return nil
	}
	for _, first := range alts[0] {
		if first.Rule != "enum" {
			continue
		}
		var values []string
		have := map[string]bool{}
		common := true
		for _, alt := range alts {
			found := false
			for _, l := range alt {
				if l.Rule == "enum" && l.Pointer == first.Pointer {
					found = true
					for _, v := range l.enum {
						b, _ := json.Marshal(v)
						if !have[string(b)] {
							have[string(b)] = true
							values = append(values, string(b))
						}
					}
				}
			}
			common = common && found
		}
		if common {
			sort.Strings(values)
			msg := "value is not one of the allowed values [" + strings.Join(values, ",") + "]"
			return []leaf{{Violation: Violation{Pointer: first.Pointer, Rule: "enum", Message: msg}}}
		}
	}
	return nil
}

// isSchemaError tells whether err itself, not an error it wraps, is a SchemaError: a
// SchemaError whose origin is a MultiError is walked through that MultiError's parts.
func isSchemaError(err error) bool {
	_, ok := err.(*openapi3.SchemaError) //nolint:errorlint // the error itself, on purpose
	return ok
}

// pointer renders path segments as an RFC 6901 JSON pointer.
func pointer(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}
