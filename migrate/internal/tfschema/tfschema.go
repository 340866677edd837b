// Package tfschema checks Terraform configuration against reduced schemas of the Cloudflare
// provider, for the packages that write or rewrite such configuration and their tests.
//
// provider-v5.22.0.json and provider-v4.52.8.json hold the names of every resource type of
// the release and, for the types sunset writes or edits, each attribute's type or nested
// attributes, whether it is required, optional or computed, and (v4) the nested blocks with
// their nesting and most elements (descriptions, defaults and validators dropped). Where
// each part came from:
//
//   - the type lists, and v5's cloudflare_ruleset, cloudflare_zone_dns_settings,
//     cloudflare_account_dns_settings, cloudflare_notification_policy and
//     cloudflare_zero_trust_access_application: `terraform providers schema -json` of the
//     provider built from source at tags v5.22.0 and v4.52.8;
//   - v5's cloudflare_zero_trust_tunnel_cloudflared, cloudflare_load_balancer_pool,
//     cloudflare_dns_record, cloudflare_zone_setting and cloudflare_universal_ssl_setting:
//     read from the schema source at tag v5.22.0 (internal/services/<type>/schema.go), the
//     same reading giving exactly the types above;
//   - v4's cloudflare_ruleset: read from internal/framework/service/rulesets/schema.go at
//     tag v4.52.8 (rules and everything in them are blocks, at most one where the provider
//     validates so);
//   - v4's cloudflare_zone_settings_override, cloudflare_tunnel,
//     cloudflare_access_application, cloudflare_load_balancer_pool, cloudflare_record and
//     cloudflare_notification_policy: read from internal/sdkv2provider/schema_cloudflare_*.go
//     at tag v4.52.8 (a list or set of objects that can be set is a block; an SDKv2
//     resource's implicit id is optional and computed).
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
