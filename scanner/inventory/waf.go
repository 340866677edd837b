package inventory

import (
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Managed rulesets that replace the previous-version WAF packages (phase
// http_request_firewall_managed).
const (
	RulesetCloudflareManaged = "efb7b8c949ac4650a09736fc376e9aee"
	RulesetOWASPCore         = "4814384a9e5d4991b9815dcfc25d2f1f"
	RulesetFreeManaged       = "77454fe2d30c4220b5701f6fdfb893ba"
)

// IsOWASP reports whether the package is the anomaly-scoring (OWASP) one; it is identified by
// detection mode, not by name.
func (p WAFPackage) IsOWASP() bool { return strings.EqualFold(p.DetectionMode, "anomaly") }

// OWASPCoreSettings maps the OWASP package's sensitivity and action mode onto the OWASP Core
// ruleset (the documented mapping): high -> paranoia level 2 / score threshold 40, medium ->
// 1 / 25, low -> 1 / 40, anything else (the default) -> 2 / 40; action simulate -> log, an
// empty action mode -> block, others unchanged.
func (p WAFPackage) OWASPCoreSettings() (paranoiaLevel, scoreThreshold int, action vocab.Action) {
	switch strings.ToLower(p.Sensitivity) {
	case "medium":
		paranoiaLevel, scoreThreshold = 1, 25
	case "low":
		paranoiaLevel, scoreThreshold = 1, 40
	default:
		paranoiaLevel, scoreThreshold = 2, 40
	}
	switch strings.ToLower(p.ActionMode) {
	case "simulate":
		action = vocab.ActionLog
	case "":
		action = vocab.ActionBlock
	default:
		action = vocab.Action(strings.ToLower(p.ActionMode))
	}
	return paranoiaLevel, scoreThreshold, action
}

// SortedPairs renders an id -> mode map of a WAF override (groups, rules, rewrite_action) as
// "id: mode" pairs in id order, so messages do not depend on map order.
func SortedPairs(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + ": " + m[k]
	}
	return out
}
