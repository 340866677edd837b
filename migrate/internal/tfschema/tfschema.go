// Package tfschema checks Terraform configuration against reduced schemas of the Cloudflare
// provider, for the packages that write or rewrite such configuration and their tests.
//
// provider-v5.22.0.json and provider-v4.52.8.json hold the names of every resource type and
// data source of the release and, for the types sunset writes, edits or reads through
// references, each attribute's type or nested attributes, whether it is required, optional
// or computed, (v5, for the types added last) the values a one-of validator allows, and (v4)
// the nested blocks with their nesting and most elements (descriptions, defaults and other
// validators dropped). Where each part came from:
//
//   - the resource type lists, and v5's cloudflare_ruleset, cloudflare_zone_dns_settings,
//     cloudflare_account_dns_settings, cloudflare_notification_policy and
//     cloudflare_zero_trust_access_application: `terraform providers schema -json` of the
//     provider built from source at tags v5.22.0 and v4.52.8;
//   - v5's cloudflare_zero_trust_tunnel_cloudflared, cloudflare_load_balancer_pool,
//     cloudflare_dns_record, cloudflare_zone_setting and cloudflare_universal_ssl_setting:
//     read from the schema source at tag v5.22.0 (internal/services/<type>/schema.go), the
//     same reading giving exactly the types above;
//   - v5's cloudflare_zone, cloudflare_filter, cloudflare_firewall_rule and
//     cloudflare_rate_limit, and its data sources cloudflare_zone, cloudflare_zones,
//     cloudflare_account and cloudflare_accounts: written by a program built inside the
//     provider's source at tag v5.22.0 that calls each type's Schema method
//     (internal/services/{zone,filter,firewall_rule,rate_limit,account}: schema.go,
//     data_source_schema.go, list_data_source_schema.go) and keeps, besides the above, the
//     values of stringvalidator.OneOf(CaseInsensitive) as enum; the same program gives
//     cloudflare_zero_trust_tunnel_cloudflared exactly as above. v5's data source list: the
//     type names of the data sources internal/provider.go registers at v5.22.0 (read from
//     each one's Metadata; the same reading gives exactly the resource type list above);
//   - v4's cloudflare_ruleset: read from internal/framework/service/rulesets/schema.go at
//     tag v4.52.8 (rules and everything in them are blocks, at most one where the provider
//     validates so);
//   - v4's cloudflare_zone_settings_override, cloudflare_tunnel,
//     cloudflare_access_application, cloudflare_load_balancer_pool, cloudflare_record and
//     cloudflare_notification_policy: read from internal/sdkv2provider/schema_cloudflare_*.go
//     at tag v4.52.8 (a list or set of objects that can be set is a block; an SDKv2
//     resource's implicit id is optional and computed);
//   - v4's cloudflare_zone, cloudflare_filter, cloudflare_firewall_rule and
//     cloudflare_rate_limit, its data sources cloudflare_zone, cloudflare_zones and
//     cloudflare_accounts, and its data source list: `terraform providers schema -json` of
//     the provider built from source at tag v4.52.8 (its validators are not in that output:
//     v4 has no enum here).
package tfschema

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
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
	// Enum are the values a string attribute takes (the provider's one-of validator, case
	// insensitive), where the reduced schema holds them; empty: any.
	Enum []string `json:"enum,omitempty"`
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
	// DataTypes are the names of every data source of the release; DataSources the schemas
	// of those the reduced schema holds.
	DataTypes   []string          `json:"data_source_types"`
	DataSources map[string]*Block `json:"data_sources"`
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
func (s *Schema) HasType(typ string) bool { return slices.Contains(s.Types, typ) }

// HasDataType reports whether the provider has the data source.
func (s *Schema) HasDataType(typ string) bool { return slices.Contains(s.DataTypes, typ) }
