package repo

import (
	"slices"
	"strings"
	"testing"
)

// TestLiteralMembersReadEveryLanguagesLiterals checks that the members of a record literal
// are read alike in each language's syntax: keys, and which values are literals.
func TestLiteralMembersReadEveryLanguagesLiterals(t *testing.T) {
	for lang, src := range map[string]string{
		"python": `{'type': 'SRV', 'ttl': f(1, 2), 'data': {'service': '_sip'}}`,
		"js":     `{ type: "SRV", ttl: f(1, 2), data: { service: "_sip" } }`,
		"ruby":   `{ :type => "SRV", "ttl" => f(1, 2), data: { service: "_sip" } }`,
		"php":    `['type' => 'SRV', 'ttl' => f(1, 2), 'data' => array('service' => '_sip')]`,
		"go":     `cloudflare.DNSRecord{Type: "SRV", TTL: f(1, 2), Data: map[string]interface{}{"service": "_sip"}}`,
		"kwargs": `create(type="SRV", ttl=f(1, 2), data=dict(service="_sip"))`,
	} {
		open := strings.IndexAny(src, "{[(")
		var keys []string
		inner := ""
		for _, m := range literalMembers([]byte(src), open) {
			keys = append(keys, strings.ToLower(m.key))
			if m.value >= 0 {
				for _, im := range literalMembers([]byte(src), m.value) {
					inner += im.key
				}
			}
		}
		if want := []string{"type", "ttl", "data"}; !slices.Equal(keys, want) {
			t.Errorf("%s: keys %v, want %v", lang, keys, want)
		}
		if inner != "service" {
			t.Errorf("%s: members of the literal values %q, want service", lang, inner)
		}
	}
}
