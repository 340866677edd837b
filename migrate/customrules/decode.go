package customrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// DecodeFirewallRules reads firewall rules as the API returns them: an
// envelope whose result is a list or a single rule, a bare list, or a bare
// rule.
func DecodeFirewallRules(data []byte) ([]inventory.FirewallRule, error) {
	body, err := unwrap(data)
	if err != nil {
		return nil, err
	}
	var rules []inventory.FirewallRule
	if body[0] == '[' {
		if err := json.Unmarshal(body, &rules); err != nil {
			return nil, fmt.Errorf("firewall rules: %w", err)
		}
		return rules, nil
	}
	var one inventory.FirewallRule
	if err := json.Unmarshal(body, &one); err != nil {
		return nil, fmt.Errorf("firewall rule: %w", err)
	}
	if one.Action == "" && one.Filter.Expression == "" {
		return nil, errors.New("not a firewall rule: no action and no filter expression")
	}
	return []inventory.FirewallRule{one}, nil
}

// DecodeRuleset reads the custom rules of an entry point: an envelope whose
// result is the ruleset, a bare ruleset ({"rules": [...]}, as a PUT body),
// or a bare list of rules.
func DecodeRuleset(data []byte) ([]inventory.RulesetRule, error) {
	body, err := unwrap(data)
	if err != nil {
		return nil, err
	}
	if body[0] == '[' {
		var rules []inventory.RulesetRule
		if err := json.Unmarshal(body, &rules); err != nil {
			return nil, fmt.Errorf("ruleset rules: %w", err)
		}
		return rules, nil
	}
	var rs inventory.Ruleset
	if err := json.Unmarshal(body, &rs); err != nil {
		return nil, fmt.Errorf("ruleset: %w", err)
	}
	if rs.Phase != "" && rs.Phase != Phase {
		return nil, fmt.Errorf("ruleset of phase %s, want %s", rs.Phase, Phase)
	}
	return rs.Rules, nil
}

// unwrap returns the result of an API envelope, or the document itself.
func unwrap(data []byte) ([]byte, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("empty document")
	}
	if data[0] != '{' && data[0] != '[' {
		return nil, errors.New("not a JSON object or array")
	}
	if data[0] == '{' {
		var env struct {
			Success *bool           `json:"success"`
			Result  json.RawMessage `json:"result"`
			Errors  json.RawMessage `json:"errors"`
		}
		if err := json.Unmarshal(data, &env); err != nil {
			return nil, err
		}
		if env.Success != nil {
			if !*env.Success {
				return nil, fmt.Errorf("the API call failed: errors %s", bytes.TrimSpace(env.Errors))
			}
			r := bytes.TrimSpace(env.Result)
			if len(r) == 0 || bytes.Equal(r, []byte("null")) {
				return []byte("[]"), nil
			}
			return r, nil
		}
	}
	return data, nil
}
