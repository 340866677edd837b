package terraform

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Provider is the provider major version a configuration is written for.
type Provider string

// The provider majors SetRules writes for.
const (
	ProviderV4 Provider = "v4" // last release 4.52.8: a ruleset's rules are nested blocks
	ProviderV5 Provider = "v5" // a ruleset's rules are one attribute, a list of objects
)

// SetRules writes rules (each the API's wire JSON of a ruleset rule; the computed members
// id, version and last_updated dropped) into the body of a cloudflare_ruleset resource, in
// the provider's syntax: for v5 the `rules = [...]` attribute exactly as plan writes it; for
// v4 one `rules { }` block per rule, nested objects as nested blocks (rulesV4 says how wire
// members map to v4). An error names the rule (1-based) and, for v4, the member v4 has no
// place for.
func SetRules(body *hclwrite.Body, rules []json.RawMessage, p Provider) error {
	switch p {
	case ProviderV5:
		vals := make([]cty.Value, 0, len(rules))
		for i, raw := range rules {
			v, err := ruleValue(raw)
			if err != nil {
				return fmt.Errorf("rule %d: %w", i+1, err)
			}
			vals = append(vals, v)
		}
		body.SetAttributeRaw("rules", listTokens(vals))
		return nil
	case ProviderV4:
		return rulesV4(body, rules)
	}
	return fmt.Errorf("terraform: provider %q: want %q or %q", p, ProviderV4, ProviderV5)
}
