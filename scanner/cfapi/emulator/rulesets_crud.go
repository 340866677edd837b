package emulator

import (
	"net/http"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// rulesetBody is the body of POST /zones/:id/rulesets and PUT /zones/:id/rulesets/:id.
type rulesetBody struct {
	Name        string                  `json:"name"`
	Description string                  `json:"description"`
	Kind        string                  `json:"kind"`
	Phase       vocab.Phase             `json:"phase"`
	Rules       []inventory.RulesetRule `json:"rules"`
}

// createRuleset is POST /zones/:id/rulesets, the call the Terraform provider creates a
// cloudflare_ruleset with: a zone ruleset of a phase, which is that phase's entry point. A
// phase has one entry point: a second one is refused (20217).
func (c *call) createRuleset() *reply {
	var in rulesetBody
	if rep := c.decode(&in); rep != nil {
		return rep
	}
	if !knownPhases[in.Phase] {
		return invalid("unknown phase %q", in.Phase)
	}
	if in.Kind != "" && in.Kind != "zone" {
		return invalid("a zone can only create rulesets of kind zone, not %q", in.Kind)
	}
	if c.zone.entrypoint(in.Phase) != nil {
		return fail(http.StatusBadRequest, CodeTooManyRulesets, "exceeded maximum number of zone rulesets for phase %s", in.Phase)
	}
	if rep := c.checkRules(in.Phase, in.Rules); rep != nil {
		return rep
	}
	name := in.Name
	if name == "" {
		name = "default"
	}
	rs := &inventory.Ruleset{ID: c.st.newID("ruleset"), Name: name, Kind: "zone", Phase: in.Phase, Version: "0"}
	c.replaceRules(rs, "", in.Description, in.Rules)
	c.zone.rulesets = append(c.zone.rulesets, rs)
	return rulesetReply(rs)
}

// updateRuleset is PUT /zones/:id/rulesets/:ruleset_id: the whole rule list of a zone
// ruleset (its phase and kind stay).
func (c *call) updateRuleset() *reply {
	rs := c.zone.ruleset(c.params["ruleset_id"])
	if rs == nil {
		return notFound("ruleset", c.params["ruleset_id"])
	}
	var in rulesetBody
	if rep := c.decode(&in); rep != nil {
		return rep
	}
	if in.Phase != "" && in.Phase != rs.Phase {
		return invalid("the phase of ruleset %s is %s; it cannot change", rs.ID, rs.Phase)
	}
	if rep := c.checkRules(rs.Phase, in.Rules); rep != nil {
		return rep
	}
	c.replaceRules(rs, in.Name, in.Description, in.Rules)
	return rulesetReply(rs)
}

// deleteRuleset is DELETE /zones/:id/rulesets/:ruleset_id; the API answers 204 with no body,
// served here as the envelope with a null result.
func (c *call) deleteRuleset() *reply {
	for i, rs := range c.zone.rulesets {
		if rs.ID == c.params["ruleset_id"] {
			c.zone.rulesets = append(c.zone.rulesets[:i], c.zone.rulesets[i+1:]...)
			return ok(nil)
		}
	}
	return notFound("ruleset", c.params["ruleset_id"])
}
