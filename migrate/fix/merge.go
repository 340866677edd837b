package fix

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// A zone has one custom rules entry point: when the module already declares it for the
// group's zone (same zone_id as written, phase http_request_firewall_custom), the migrated
// rules join it after its own rules (which ran first, as sunset plan keeps them), in the
// resource's own syntax: rules blocks (provider v4) or the rules attribute (v5), whatever
// --target says.

// existingEntryPoint finds the module's cloudflare_ruleset of the group's zone and phase.
func existingEntryPoint(ev *evaluator, g *group) *Resource {
	r, _ := declaredRuleset(ev, g.module, vocab.PhaseCustomRules, g.zoneText)
	return r
}

// mergeInto adds the group's rules to the existing entry point and returns the edit that does
// it.
func (f *fixer) mergeInto(ev *evaluator, g *group, ep *Resource, res *customrules.Result, rw *Rewrite) ([]edit, error) {
	attr := ep.Block.Body.Attributes["rules"]
	target := entryPointSyntax(ep)
	tmp := hclwrite.NewEmptyFile()
	rb := tmp.Body().AppendNewBlock("resource", []string{typeRuleset, "tmp"}).Body()
	if err := f.setRules(ev, g, rb, res, rw, target); err != nil {
		return nil, err
	}
	rw.Notes = append(rw.Notes, f.mergeNote(ep, target))
	return appendRules(ep, attr, target, hclwrite.Format(tmp.Bytes())), nil
}

// mergeNote says where the rules went, and in which syntax. A declared entry point keeps its
// own syntax, whatever --target says: rules in v5's syntax inside v4's blocks (or the other
// way) would be valid for neither provider, and converting the block's own rules (dynamic
// blocks, nested blocks, their expressions) is the provider's upgrade tool's work, which
// converts the whole block, added rules included, with the rest of the configuration. So
// under --target v5 a ruleset written for v4 gets v4's rules blocks, and the note says that
// the block is v4's and what converts it.
func (f *fixer) mergeNote(ep *Resource, syntax terraform.Provider) string {
	note := fmt.Sprintf("added after the rules %s already holds (they ran first, and stay first), in its own syntax (provider %s)", ep.Address(), syntax)
	switch {
	case syntax == terraform.ProviderV4 && f.opts.Target == terraform.ProviderV5:
		note += fmt.Sprintf(": %s is written for provider v4, not v5; the provider's tf-migrate converts it, the added rules with it, when the rest of the configuration moves to v5", ep.Address())
	case syntax != f.opts.Target:
		note += fmt.Sprintf(": %s is written for provider %s, which the added rules follow; provider %s cannot read the block either way", ep.Address(), syntax, f.opts.Target)
	}
	return note
}

// entryPointSyntax is the provider whose syntax a declared entry point's rules are in: rules
// blocks are v4's, a rules attribute (or none) v5's.
func entryPointSyntax(ep *Resource) terraform.Provider {
	if _, hasAttr := ep.Block.Body.Attributes["rules"]; !hasAttr && hasRulesBlocks(ep.Block.Body) {
		return terraform.ProviderV4
	}
	return terraform.ProviderV5
}

// appendRules are the edits that add the rules of formatted (a ruleset block rendered in
// target's syntax) after the rules the declared entry point ep holds (attr: its rules
// attribute, nil for v4's blocks).
func appendRules(ep *Resource, attr *hclsyntax.Attribute, target terraform.Provider, formatted []byte) []edit {
	inner := blockInner(formatted)
	if target == terraform.ProviderV4 || attr == nil { // rules blocks, or a first rules attribute
		// before the closing brace
		end := ep.Block.Body.SrcRange.End.Byte - 1 // the block's closing brace
		return []edit{{start: lineStart(ep.File.Src, end), end: lineStart(ep.File.Src, end), text: "\n" + inner}}
	}
	newList := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(inner), "rules ="))
	rng := attr.Expr.Range()
	first, last := strings.Index(inner, "[\n"), strings.LastIndex(inner, "\n  ]")
	if t, ok := attr.Expr.(*hclsyntax.TupleConsExpr); ok && first >= 0 && last > first {
		at := lineStart(ep.File.Src, rng.End.Byte-1) // the line of the closing bracket
		es := []edit{{start: at, end: at, text: inner[first+2 : last+1]}}
		if n := len(t.Exprs); n > 0 {
			end := t.Exprs[n-1].Range().End.Byte
			if !bytes.HasPrefix(bytes.TrimLeft(ep.File.Src[end:rng.End.Byte], " \t\n"), []byte(",")) {
				es = append(es, edit{start: end, end: end, text: ","})
			}
		}
		return es
	}
	existing := string(ep.File.Src[rng.Start.Byte:rng.End.Byte])
	return []edit{{start: rng.Start.Byte, end: rng.End.Byte, text: "concat(" + existing + ", " + newList + ")"}}
}

func hasRulesBlocks(b *hclsyntax.Body) bool {
	for _, blk := range b.Blocks {
		if blk.Type == "rules" || (blk.Type == "dynamic" && len(blk.Labels) == 1 && blk.Labels[0] == "rules") {
			return true
		}
	}
	return false
}

// blockInner is the body of the one block in src, as formatted (indented by two spaces).
func blockInner(src []byte) string {
	s := string(src)
	open := strings.Index(s, "{\n")
	end := strings.LastIndex(s, "}")
	if open < 0 || end < open {
		return ""
	}
	return s[open+2 : end]
}
