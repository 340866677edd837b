// Package tfschema checks Terraform configuration against reduced schemas of the Cloudflare
// provider, for the packages that write or rewrite such configuration and their tests.
//
// provider-v5.22.0.json and provider-v4.52.8.json are `terraform providers schema -json` of
// the provider built from source (tags v5.22.0 and v4.52.8), reduced to the names of every
// resource type and, for the types sunset writes, each attribute's type or nested attributes
// and whether it is required, optional or computed (descriptions and validators dropped).
// The v4 cloudflare_ruleset (its nested blocks included, with at most one element where the
// provider validates so) was written down from the v4 provider's ruleset schema source
// (internal/framework/service/rulesets/schema.go): v5 takes nested attributes, v4 blocks.
package tfschema

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed provider-*.json
var files embed.FS

// Attr is one attribute of a reduced provider schema.
type Attr struct {
	Type       json.RawMessage  `json:"type,omitempty"`    // cty type JSON, for a plain attribute
	Nesting    string           `json:"nesting,omitempty"` // single, list, set or map, for a nested one
	Attributes map[string]*Attr `json:"attributes,omitempty"`
	Required   bool             `json:"required,omitempty"`
	Optional   bool             `json:"optional,omitempty"`
	Computed   bool             `json:"computed,omitempty"`
}

// Settable reports whether a configuration may set the attribute.
func (a *Attr) Settable() bool { return a.Required || a.Optional }

// Block is a resource's schema or one of its nested blocks: attributes and nested blocks.
type Block struct {
	Nesting    string            `json:"nesting,omitempty"`   // list or set, for a nested block
	MaxItems   int               `json:"max_items,omitempty"` // 0: unbounded
	Attributes map[string]*Attr  `json:"attributes,omitempty"`
	Blocks     map[string]*Block `json:"blocks,omitempty"`
}

// Schema is a reduced provider schema.
type Schema struct {
	Version   string            `json:"version"`
	Types     []string          `json:"resource_types"`
	Resources map[string]*Block `json:"resources"`
}

// Load reads the embedded reduced schema of a provider version ("5.22.0", "4.52.8").
func Load(version string) (*Schema, error) {
	data, err := files.ReadFile("provider-v" + version + ".json")
	if err != nil {
		return nil, fmt.Errorf("tfschema: no schema of provider %s", version)
	}
	var s Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("tfschema: provider %s: %w", version, err)
	}
	return &s, nil
}

// HasType reports whether the provider has the resource type.
func (s *Schema) HasType(typ string) bool {
	for _, t := range s.Types {
		if t == typ {
			return true
		}
	}
	return false
}
