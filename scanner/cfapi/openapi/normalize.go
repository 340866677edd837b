package openapi

import "github.com/getkin/kin-openapi/openapi3"

// hoistReadOnly marks a schema readOnly when one of its allOf parts says so. The description
// writes read-only members as {"allOf": [{"$ref": ...}, {"readOnly": true}]}, and the
// validation library looks for readOnly on the member's own schema only, so without this
// such members (a ruleset's id, say) would be required in requests.
func hoistReadOnly(t *openapi3.T) {
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
		for _, sub := range s.AllOf {
			if sub != nil && sub.Value != nil && sub.Value.ReadOnly {
				s.ReadOnly = true
			}
		}
		for _, sub := range s.Properties {
			visit(sub)
		}
		visit(s.Items)
		visit(s.Not)
		visit(s.AdditionalProperties.Schema)
	}
	if t.Components != nil {
		for _, ref := range t.Components.Schemas {
			visit(ref)
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
