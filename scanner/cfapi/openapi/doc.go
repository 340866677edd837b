// Package openapi checks request and response bodies against the API's public OpenAPI 3.0
// description, read from a file at run time (the project never embeds that document).
//
// A Doc finds the operation of a method and a concrete path relative to the v4 base
// ("/zones/023e.../dns_records/372e..."): templated segments such as {zone_id} match any
// segment and literal segments win over templated ones. ValidateRequest checks a JSON body as
// a request (readOnly members are neither required nor refused, since the API ignores them);
// ValidateResponse checks one against the response of its status. Every violation names the
// JSON pointer of the offending member and the schema rule it breaks.
//
// The 2024-08-06 snapshot of the description is stale in a few known places; Load patches
// them (see patches.go) and Doc.Patches lists what was patched, so tests can say so.
package openapi

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// ErrNoOperation is wrapped by the errors of lookups and validations when the document
// describes no operation for the method and path.
var ErrNoOperation = errors.New("the document describes no such operation")

// Doc is a loaded OpenAPI 3.0 document with its operations indexed by path. It is safe for
// concurrent use once loaded.
type Doc struct {
	source  string
	doc     *openapi3.T
	paths   []*pathItem
	patches []string
}

// pathItem is one templated path of the document with its operations by method.
type pathItem struct {
	template string
	segs     []string // "" marks a templated segment
	ops      map[string]*Operation
}

// Operation is one method of one path of the document.
type Operation struct {
	// Method is the HTTP method in upper case.
	Method string
	// Path is the path template as the document writes it, e.g. "/zones/{zone_id}/dns_records".
	Path string
	// ID is the document's operationId.
	ID string
	op *openapi3.Operation
}

// String names the operation as "METHOD /template".
func (o *Operation) String() string { return o.Method + " " + o.Path }

// HasRequestSchema reports whether the operation describes a JSON request body with a schema.
func (o *Operation) HasRequestSchema() bool { return requestSchema(o.op) != nil }

// maxDocSize bounds the document read (the published spec is a few tens of megabytes).
const maxDocSize = 512 << 20

// Load reads an OpenAPI 3.0 document (JSON or YAML) from a file, resolves its internal
// references and patches its known stale points. The error names the file.
func Load(path string) (*Doc, error) { return load(path, true) }

// load is Load with the patches optional, so tests can show each stale point.
func load(path string, patched bool) (*Doc, error) {
	data, err := safefile.ReadFile(path, maxDocSize)
	if err != nil {
		return nil, fmt.Errorf("openapi: cannot read %s: %w", path, err)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false // the document must be self-contained
	t, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: %s is not a readable OpenAPI document: %w", path, err)
	}
	if !strings.HasPrefix(t.OpenAPI, "3.0") {
		return nil, fmt.Errorf("openapi: %s declares openapi %q; only 3.0 documents are supported", path, t.OpenAPI)
	}
	if t.Paths == nil || t.Paths.Len() == 0 {
		return nil, fmt.Errorf("openapi: %s describes no paths", path)
	}
	d := &Doc{source: path, doc: t}
	if patched {
		d.patches = applyPatches(t)
	}
	normalize(t)
	d.index()
	return d, nil
}

// index builds the path table, sorted by template for deterministic listings.
func (d *Doc) index() {
	for template, item := range d.doc.Paths.Map() {
		p := &pathItem{template: template, ops: map[string]*Operation{}}
		for _, seg := range splitPath(template) {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				seg = ""
			}
			p.segs = append(p.segs, seg)
		}
		for method, op := range item.Operations() {
			m := strings.ToUpper(method)
			p.ops[m] = &Operation{Method: m, Path: template, ID: op.OperationID, op: op}
		}
		d.paths = append(d.paths, p)
	}
	sort.Slice(d.paths, func(i, j int) bool { return d.paths[i].template < d.paths[j].template })
}

// Source is the file the document was loaded from.
func (d *Doc) Source() string { return d.source }

// Patches describes each stale point of the document that Load patched, one sentence each
// saying what was changed and why; empty when the document needed none.
func (d *Doc) Patches() []string { return append([]string(nil), d.patches...) }

// Operations lists every operation of the document, by path template then method.
func (d *Doc) Operations() []*Operation {
	var out []*Operation
	for _, p := range d.paths {
		methods := make([]string, 0, len(p.ops))
		for m := range p.ops {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			out = append(out, p.ops[m])
		}
	}
	return out
}

// Operation finds the operation for a method and a concrete path relative to the v4 base
// (a query string is ignored). Among templates that match, the one whose literal segments
// come first wins, so /rulesets/phases/{phase}/entrypoint beats /rulesets/{id}/... The error
// wraps ErrNoOperation when no template matches or the matching one lacks the method.
func (d *Doc) Operation(method, path string) (*Operation, error) {
	path, _, _ = strings.Cut(path, "?")
	segs := splitPath(path)
	var best *pathItem
	for _, p := range d.paths {
		if matches(p.segs, segs) && (best == nil || moreLiteral(p.segs, best.segs)) {
			best = p
		}
	}
	m := strings.ToUpper(method)
	if best == nil {
		return nil, fmt.Errorf("%s %s: %w (no path template matches)", m, path, ErrNoOperation)
	}
	op := best.ops[m]
	if op == nil {
		return nil, fmt.Errorf("%s %s: %w (%s has no %s)", m, path, ErrNoOperation, best.template, m)
	}
	return op, nil
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// matches reports whether concrete segments fit a template ("" matches any non-empty segment).
func matches(template, segs []string) bool {
	if len(template) != len(segs) {
		return false
	}
	for i, t := range template {
		if segs[i] == "" || (t != "" && t != segs[i]) {
			return false
		}
	}
	return true
}

// moreLiteral reports whether template a is more specific than b: at the first segment where
// one is literal and the other templated, the literal one wins.
func moreLiteral(a, b []string) bool {
	for i := range a {
		if (a[i] != "") != (b[i] != "") {
			return a[i] != ""
		}
	}
	return false
}
