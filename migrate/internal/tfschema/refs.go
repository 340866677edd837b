package tfschema

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// providerPrefix starts the name of every type of the provider these schemas describe; a
// reference rooted elsewhere (var, local, module, another provider's type) is not theirs.
const providerPrefix = "cloudflare_"

// Reference is a reference to an attribute of a resource or data source: TYPE.NAME.PATH or
// data.TYPE.NAME.PATH, instance keys and list indexes left out of Path.
type Reference struct {
	Data bool
	Type string
	Name string
	// Path are the attribute names read, the first one of the type's own.
	Path []string
}

// String is the reference as written, without its indexes.
func (r Reference) String() string {
	s := r.Type + "." + r.Name
	if r.Data {
		s = "data." + s
	}
	if len(r.Path) > 0 {
		s += "." + strings.Join(r.Path, ".")
	}
	return s
}

// ParseReference reads a traversal as a reference to a provider type's attribute; false
// when it is rooted elsewhere or reads no attribute (TYPE.NAME alone, as depends_on has it).
func ParseReference(t hcl.Traversal) (Reference, bool) {
	var names []string
	for _, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			names = append(names, s.Name)
		case hcl.TraverseAttr:
			names = append(names, s.Name)
		}
	}
	var r Reference
	if len(names) > 0 && names[0] == "data" {
		r.Data, names = true, names[1:]
	}
	if len(names) < 3 || !strings.HasPrefix(names[0], providerPrefix) {
		return Reference{}, false
	}
	r.Type, r.Name, r.Path = names[0], names[1], names[2:]
	return r, true
}

// CheckReferences checks every reference in body to this provider's types: the type exists
// and, where the reduced schema holds it, reads attributes the type has (see CheckPath).
// where prefixes the errors.
func (s *Schema) CheckReferences(where string, body hclsyntax.Node) []error {
	var errs []error
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		x, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok {
			return nil
		}
		r, ok := ParseReference(x.Traversal)
		if !ok {
			return nil
		}
		if _, err := s.CheckPath(r); err != nil {
			errs = append(errs, fmt.Errorf("%s: line %d reads %s: %w", where, x.SrcRange.Start.Line, r, err))
		}
		return nil
	})
	return errs
}

// CheckPath checks that the provider has r's type and, where the reduced schema holds the
// type, each attribute r's path names (an attribute of an object, of a nested attribute or
// of a nested block; any key of a map). On error it returns the index in r.Path of the first
// name the provider does not have (-1: the type itself).
func (s *Schema) CheckPath(r Reference) (int, error) {
	schemas, has, kind := s.Resources, s.HasType, "resource type"
	if r.Data {
		schemas, has, kind = s.DataSources, s.HasDataType, "data source"
	}
	b, ok := schemas[r.Type]
	if !ok {
		if has(r.Type) {
			return 0, nil // kept by name only
		}
		return -1, fmt.Errorf("provider %s has no %s %s", s.Version, kind, r.Type)
	}
	for i, name := range r.Path {
		a, inner, ok := b.Attributes[name], b.Blocks[name], false
		switch {
		case inner != nil:
			b, ok = inner, true
		case a != nil && a.Attributes != nil:
			b, ok = &Block{Attributes: a.Attributes}, true
		case a != nil:
			return s.typePath(r, i, a.Type)
		}
		if !ok {
			return i, fmt.Errorf("provider %s's %s %s has no attribute %s", s.Version, kind, r.Type, strings.Join(r.Path[:i+1], "."))
		}
	}
	return 0, nil
}

// typePath checks the rest of r.Path (after index i) against a plain attribute's type.
func (s *Schema) typePath(r Reference, i int, typeJSON []byte) (int, error) {
	ty, err := ctyjson.UnmarshalType(typeJSON)
	if err != nil {
		return i, err
	}
	for j := i + 1; j < len(r.Path); j++ {
		for ty.IsListType() || ty.IsSetType() {
			ty = ty.ElementType() // an index the path does not show
		}
		switch {
		case ty == cty.DynamicPseudoType:
			return 0, nil
		case ty.IsMapType():
			ty = ty.ElementType()
		case ty.IsObjectType() && ty.HasAttribute(r.Path[j]):
			ty = ty.AttributeType(r.Path[j])
		default:
			return j, fmt.Errorf("provider %s's %s has no attribute %s", s.Version, r.Type, strings.Join(r.Path[:j+1], "."))
		}
	}
	return 0, nil
}
