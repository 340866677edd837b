package apply

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
)

// undoSteps are the scope's steps a rollback undoes, in the order it undoes them: those the
// journal says were begun or done, last first, reads left out, up to and including the
// first deletion, where the rollback of the scope stops (a deletion cannot be undone).
func (r *scopeRun) undoSteps(touchedBy map[string]*touched) []migrate.Step {
	var out []migrate.Step
	for i := len(r.sc.steps) - 1; i >= 0; i-- {
		st := r.sc.steps[i]
		t := touchedBy[r.key(st)]
		if t == nil || (!t.begun && !t.done) || st.Method == http.MethodGet || t.standsOnly() {
			continue
		}
		out = append(out, st)
		if st.Method == http.MethodDelete {
			break
		}
	}
	return out
}

// undoCall is the write a rollback sends to undo st (see the handlers' undo): its method,
// its path (an id the journal does not hold is named in braces: the rollback finds it by
// reading) and what it does in words. A deletion has no undo: its method and path are "".
func (r *scopeRun) undoCall(st migrate.Step, t *touched) (method, path, what string) {
	spec := migrate.SpecOf(st)
	if spec == nil {
		return "", "", fmt.Sprintf("%s %s cannot be undone", st.Method, st.Path)
	}
	switch spec.Op {
	case migrate.OpCreateEntrypoint:
		id := idOr(t.created["ruleset_id"], "{the entry point's id, read first}")
		if added := t.created["added_rule_ids"]; added != "" {
			return http.MethodDelete, "/zones/" + r.sc.id + "/rulesets/" + id + "/rules/{" + added + "}",
				fmt.Sprintf("delete the rules this apply added to the %s entry point, which someone else had created (it stays, with their rules)", spec.Phase)
		}
		return http.MethodDelete, "/zones/" + r.sc.id + "/rulesets/" + id,
			fmt.Sprintf("delete the %s entry point this apply created, with its rules (if someone else added rules to it since, only this apply's rules are deleted)", spec.Phase)
	case migrate.OpAddRule:
		id := idOr(t.created["rule_id"], "{the rule's id, found by reading}")
		return http.MethodDelete, st.Path + "/" + id, "delete the rule this apply added" + named(ruleRef(st))
	case migrate.OpUpdate:
		before, err := r.trustedBefore(st, t.before)
		switch {
		case err != nil:
			return st.Method, st.Path, err.Error()
		case len(before) == 0:
			return st.Method, st.Path, "the journal does not say what it overwrote: the rollback stops here"
		}
		return st.Method, st.Path, "write back what the apply overwrote: " + clipRaw(before)
	case migrate.OpCreate:
		id := idOr(t.created["id"], "{its id, found by what it does}")
		return http.MethodDelete, st.Path + "/" + id, "delete the object this apply created" + named(nameOf(st))
	case migrate.OpDelete:
		return "", "", fmt.Sprintf("%s deleted %s: a deletion cannot be undone, the rollback of this %s stops here with the replacements in place", st.ID, st.Path, r.sc.kind)
	}
	return "", "", fmt.Sprintf("%s %s cannot be undone", st.Method, st.Path)
}

// undoRequests is what undoing st sends when nothing fails and it is not undone yet: the
// read, the write and the read back, and the lookup of an object whose id the journal lacks
// (a rule's lookup is the first read).
func undoRequests(st migrate.Step, t *touched) int {
	spec := migrate.SpecOf(st)
	if spec == nil || !spec.Undoable() {
		return 0
	}
	switch {
	case spec.Op == migrate.OpCreate && t.created["id"] == "":
		return 3 // list, DELETE, read back
	case spec.Op == migrate.OpCreate:
		return 2 // DELETE, read back
	case spec.Op == migrate.OpCreateEntrypoint && t.created["added_rule_ids"] != "":
		return 2 + len(strings.Split(t.created["added_rule_ids"], ",")) // read, a DELETE a rule, read back
	}
	return 3 // read, write, read back
}

// EstimateRollback is how many requests a rollback of l sends when nothing fails and
// nothing is undone yet: per step it undoes, undoRequests.
func EstimateRollback(l *Loaded) int {
	n := 0
	for _, sc := range scopesOf(l.Plan, l.Snapshot) {
		r := &scopeRun{opts: &Options{}, sc: sc}
		for _, st := range r.undoSteps(l.touched) {
			n += undoRequests(st, l.touched[r.key(st)])
		}
	}
	return n
}

func idOr(id, unknown string) string {
	if id == "" {
		return unknown
	}
	return id
}

// named is ` "name"` for a name, "" for none.
func named(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" %q", name)
}

// ruleRef is the ref (else the description) of the rule a rule POST adds.
func ruleRef(st migrate.Step) string {
	var rule struct {
		Ref         string `json:"ref"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(st.Body, &rule)
	if rule.Description != "" {
		return rule.Description
	}
	return rule.Ref
}

// clipRaw is a JSON value on one line, shortened.
func clipRaw(raw []byte) string {
	if v, err := decodeAny(raw); err == nil {
		return clipJSON(v, "")
	}
	return string(raw)
}
