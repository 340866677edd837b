package openapi

import "github.com/getkin/kin-openapi/openapi3"

// normalize rewrites the document into an equivalent form the validation library reads as the
// description means it.
func normalize(t *openapi3.T) {
	eachSchema(t, pushRequired)
	eachSchema(t, hoistReadOnly)
}

// eachSchema calls f once on every schema reachable from the components and the operations,
// children before parents.
func eachSchema(t *openapi3.T, f func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(ref *openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range group {
				visit(sub)
			}
		}
		for _, sub := range s.Properties {
			visit(sub)
		}
		visit(s.Items)
		visit(s.Not)
		visit(s.AdditionalProperties.Schema)
		f(s)
	}
	if t.Components != nil {
		for _, ref := range t.Components.Schemas {
			visit(ref)
		}
		for _, rb := range t.Components.RequestBodies {
			if rb.Value != nil {
				for _, mt := range rb.Value.Content {
					visit(mt.Schema)
				}
			}
		}
	}
	for _, item := range t.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					visit(mt.Schema)
				}
			}
			if op.Responses == nil {
				continue
			}
			for _, r := range op.Responses.Map() {
				if r.Value != nil {
					for _, mt := range r.Value.Content {
						visit(mt.Schema)
					}
				}
			}
		}
	}
}

// hoistReadOnly marks a schema readOnly when one of its allOf parts says so. The description
// writes read-only members as {"allOf": [{"$ref": ...}, {"readOnly": true}]}, and the
// validation library looks for readOnly on the member's own schema only, so without this
// such members (a ruleset's id, say) would be required in requests.
func hoistReadOnly(s *openapi3.Schema) {
	for _, sub := range s.AllOf {
		if sub != nil && sub.Value != nil && sub.Value.ReadOnly {
			s.ReadOnly = true
		}
	}
}

// pushRequired moves the required members of a oneOf or anyOf schema that does not declare
// them itself into each alternative, as {"allOf": [alternative], "required": [...]}: the same
// constraint, since the value must match an alternative, but now checked where the
// alternative declares which members are read-only (a DNS record's created_on, say), which
// the library looks at and the outer schema cannot say. Discriminated schemas are left alone:
// their alternatives are matched by reference.
func pushRequired(s *openapi3.Schema) {
	alts := &s.OneOf
	if len(*alts) == 0 {
		alts = &s.AnyOf
	}
	if len(*alts) == 0 || len(s.Required) == 0 || s.Discriminator != nil {
		return
	}
	var keep, push []string
	for _, k := range s.Required {
		if s.Properties[k] != nil {
			keep = append(keep, k)
		} else {
			push = append(push, k)
		}
	}
	if len(push) == 0 {
		return
	}
	wrapped := make(openapi3.SchemaRefs, len(*alts))
	for i, alt := range *alts {
		wrapped[i] = &openapi3.SchemaRef{Value: &openapi3.Schema{AllOf: openapi3.SchemaRefs{alt}, Required: push}}
	}
	*alts = wrapped
	s.Required = keep
}
