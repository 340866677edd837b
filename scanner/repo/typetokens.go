package repo

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// typeTokenDetector finds the resource type tokens of infrastructure-as-code programs
// written in YAML or JSON (Pulumi YAML: type: cloudflare:FirewallRule, or the long forms
// cloudflare:index:FirewallRule and cloudflare:index/firewallRule:FirewallRule), for the
// libraries of sdks.yaml that have a type_token.
type typeTokenDetector struct {
	prefixes []tokenPrefix
	types    map[string]map[string]vocab.RuleID // package -> type -> rule
}

// tokenPrefix finds "<package>:" (lowercased) in a file.
type tokenPrefix struct {
	pkg string
	f   finder
}

func newTypeTokenDetector(table *catalog.CodeTable) *typeTokenDetector {
	d := &typeTokenDetector{types: map[string]map[string]vocab.RuleID{}}
	for _, s := range table.SDKs {
		if s.TypeToken == "" {
			continue
		}
		if d.types[s.TypeToken] == nil {
			d.types[s.TypeToken] = map[string]vocab.RuleID{}
			d.prefixes = append(d.prefixes, tokenPrefix{pkg: s.TypeToken, f: newFinder([]byte(strings.ToLower(s.TypeToken) + ":"))})
		}
		for rule, names := range s.Types {
			for _, n := range names {
				d.types[s.TypeToken][n] = rule
			}
		}
	}
	return d
}

func (d *typeTokenDetector) reads(k Kind) bool { return k == KindYAML || k == KindJSON }

func (d *typeTokenDetector) check(_ *Checker, in *input, add func(hit)) []span {
	for _, p := range d.prefixes {
		for off := p.f.index(in.lower, 0); off >= 0; off = p.f.index(in.lower, off+1) {
			if off > 0 && isWordByte(in.data[off-1]) {
				continue
			}
			end := off
			for end < len(in.data) && (isWordByte(in.data[end]) || in.data[end] == ':' || in.data[end] == '/') && in.data[end] != '.' {
				end++
			}
			token := string(in.data[off:end])
			typ := token[strings.LastIndexByte(token, ':')+1:]
			rule, ok := d.types[p.pkg][typ]
			if !ok || strings.Count(token, ":") > 2 {
				continue
			}
			line, col := in.li.pos(off)
			add(hit{
				rule: rule, kind: "resource", id: token, name: typ,
				address: "type " + token,
				msg:     "declares a " + token + " resource",
				loc:     scanner.Location{StartLine: line, StartColumn: col, EndLine: line, EndColumn: col + len(token)},
			})
		}
	}
	return nil
}
