package terraform

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Provider is the provider major version a configuration is written for.
type Provider string

// Provider versions.
const (
	ProviderV4 Provider = "v4"
	ProviderV5 Provider = "v5"
)

// SetRules is a stand-in until the v4 renderer lands (v5 only).
func SetRules(body *hclwrite.Body, rules []json.RawMessage, p Provider) error {
	if p != ProviderV5 {
		return fmt.Errorf("v4 not yet")
	}
	vals := make([]cty.Value, 0, len(rules))
	for _, raw := range rules {
		v, err := ruleValue(raw)
		if err != nil {
			return err
		}
		vals = append(vals, v)
	}
	body.SetAttributeRaw("rules", listTokens(vals))
	return nil
}
