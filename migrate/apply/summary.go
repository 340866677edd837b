package apply

import (
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
)

// keepOldReason is why --keep-old holds a deletion back (StepResult.Reason of a held step).
const keepOldReason = "--keep-old: deletes wait for a run without it"

// Summary is an apply told as Terraform tells one: what happened to the account's objects,
// how the scopes ended, what is left by hand, and the findings a rescan will still report.
// A dry run's counts are what the apply would do.
type Summary struct {
	// Created, Changed, Paused and Deleted count the objects this run wrote (rules added to
	// an entry point count as created; Paused counts pauses and switch-offs of old
	// protections). A rollback's Deleted are what it removed of the apply's, its Restored
	// what it wrote back as it was.
	Created  int `json:"created"`
	Changed  int `json:"changed"`
	Paused   int `json:"paused"`
	Deleted  int `json:"deleted"`
	Restored int `json:"restored,omitempty"`
	// FoundDone are steps found done without a request (an earlier run, the journal).
	FoundDone int `json:"found_done"`
	// Held are the steps not run: deletions --keep-old keeps for later, steps waiting on a
	// manual step.
	Held   int         `json:"held"`
	Scopes ScopeCounts `json:"scopes"`
	// Manual is what is left by hand, by kind, most first; ManualSteps their total.
	Manual      []ManualCount `json:"manual"`
	ManualSteps int           `json:"manual_steps"`
	// Left are the findings a rescan will still report (none for a rollback).
	Left FindingsLeft `json:"findings_left"`
}

// ScopeCounts says how the scopes ended. Partial scopes are not done: old objects are kept
// (--keep-old) or steps wait on a manual step.
type ScopeCounts struct {
	Done       int `json:"done"`
	Partial    int `json:"partial"`
	Stopped    int `json:"stopped"`
	NotStarted int `json:"not_started"` // an interrupted run never reached them
}

// ManualCount is how many manual steps of one kind are left, with the kind in words.
type ManualCount struct {
	Kind  string `json:"kind"`
	What  string `json:"what"`
	Count int    `json:"count"`
}

// FindingsLeft are the findings a rescan will report: the plan's that no done step settled,
// by why (a manual step, or a step waiting on one; an old object --keep-old kept; a step a
// stopped or unstarted scope did not reach; no step at all, Plan.Unplanned), each once,
// under the first step of the plan that still holds it; and Created, the findings on what
// the apply creates (a custom rule created disabled because it names cf.threat_score).
type FindingsLeft struct {
	Total      int            `json:"total"`
	Manual     int            `json:"manual"`
	KeptOld    int            `json:"kept_old"`
	NotReached int            `json:"not_reached"`
	NoStep     int            `json:"no_step"`
	Created    int            `json:"created"`
	BySeverity map[string]int `json:"by_severity,omitempty"`
}

// Summarize tells res, the result of Apply or Rollback of p; rescan, when not nil, judges
// the findings left (FindingsLeft.BySeverity, the findings on what the apply creates).
func Summarize(p *migrate.Plan, res *Result, rescan *Rescan) Summary {
	var s Summary
	if rescan == nil {
		rescan = &Rescan{}
	}
	manual := map[string]int{}
	left := map[string]string{} // fingerprint -> why it is left
	replaced := map[string]bool{}
	var created []string // the severities of the findings on what the apply creates
	scopes := scopesOf(p, nil)
	for i := range res.Scopes {
		sc := &res.Scopes[i]
		s.countScope(sc)
		for _, st := range sc.Steps {
			s.countStep(st, res.Rollback)
		}
		if !res.Rollback && i < len(scopes) {
			leftBy(scopes[i], sc, left, replaced, rescan)
			if made := createdRules(scopes[i], sc); len(made) > 0 && rescan.Created != nil {
				created = append(created, rescan.Created(scopes[i].id, made)...)
			}
		}
	}
	for _, sc := range scopes {
		for _, st := range sc.steps {
			if st.Manual && !res.Rollback {
				manual[string(st.Kind)]++ // from the plan: a scope never started has them too
			}
		}
	}
	s.Manual, s.ManualSteps = manualCounts(manual)
	if !res.Rollback {
		for _, fp := range p.Unplanned {
			if _, ok := left[fp]; !ok {
				left[fp] = "no-step"
			}
		}
		s.Left = countLeft(left, replaced, rescan.Severity)
		s.Left.Created, s.Left.Total = len(created), s.Left.Total+len(created)
		for _, sev := range created {
			if s.Left.BySeverity != nil {
				s.Left.BySeverity[sev]++
			}
		}
	}
	return s
}

func (s *Summary) countScope(sc *ScopeResult) {
	switch sc.Status {
	case StatusDone, StatusDryRun:
		s.Scopes.Done++
	case StatusPartial:
		s.Scopes.Partial++
	case StatusStopped:
		s.Scopes.Stopped++
	default:
		s.Scopes.NotStarted++ // an interrupted run left its result empty
	}
}

// countStep counts what one step did to its object.
func (s *Summary) countStep(st StepResult, rollback bool) {
	spec := migrate.SpecOf(migrate.Step{Kind: migrate.StepKind(st.Kind)})
	switch st.Outcome {
	case OutcomeAlready, OutcomeJournal:
		s.FoundDone++
		return
	case OutcomeHeld:
		s.Held++
		return
	case OutcomeSent, OutcomeWould, OutcomeUndone:
	default:
		return
	}
	if spec == nil {
		return
	}
	switch {
	case rollback && spec.Op == migrate.OpUpdate:
		s.Restored++
	case rollback:
		s.Deleted++ // a rollback deletes what the apply created
	case spec.Op == migrate.OpCreate || spec.Op == migrate.OpCreateEntrypoint || spec.Op == migrate.OpAddRule:
		s.Created++
	case spec.Op == migrate.OpUpdate && spec.Removes:
		s.Paused++
	case spec.Op == migrate.OpUpdate:
		s.Changed++
	case spec.Op == migrate.OpDelete:
		s.Deleted++
	}
}

// leftBy files the findings of the scope's steps that are not done, by why, but for those
// on an object a done step deleted (rescan.Object names a finding's object) and those a
// review step leaves that a scan of the zone as the apply leaves it no longer reports
// (rescan.After). replaced gets the findings a done step of the scope lists: their
// replacement is in place.
func leftBy(sc scope, res *ScopeResult, left map[string]string, replaced map[string]bool, rescan *Rescan) {
	outcome := make(map[string]StepResult, len(res.Steps))
	deleted := map[string]bool{} // object ids a done step deleted
	for _, st := range res.Steps {
		outcome[st.ID] = st
		if spec := migrate.SpecOf(migrate.Step{Kind: migrate.StepKind(st.Kind)}); spec != nil && spec.Op == migrate.OpDelete && doneOrWould(st.Outcome) {
			deleted[objectOf(st.ID)] = true
		}
	}
	gone := goneAfter(sc, deleted, rescan)
	whyOf := map[string]string{} // step id -> why it is not done
	for _, st := range sc.steps {
		r, ran := outcome[st.ID]
		why := whyLeft(st, r, ran, deleted, whyOf)
		whyOf[st.ID] = why
		for _, fp := range st.Resolves {
			switch {
			case why == "" && ran && r.Outcome != OutcomeHeld:
				replaced[fp] = true
			case why == "":
			case rescan.Object != nil && rescan.Object(fp) != "" && deleted[rescan.Object(fp)]:
				// Gone with its object: a review of a filter the apply deleted.
			case st.Kind == migrate.KindFindingReview && gone(fp):
				// Gone with how the old objects stood together.
			case left[fp] == "":
				left[fp] = why
			}
		}
	}
}

// heldFor is why a step held back for its dependencies is not done: "manual" when one of
// them waits on an operator, else "kept-old" (they wait for a run without --keep-old).
func heldFor(st migrate.Step, whyOf map[string]string) string {
	for _, d := range st.DependsOn {
		if whyOf[d] == "manual" {
			return "manual"
		}
	}
	return "kept-old"
}

// doneOrWould reports whether an outcome leaves the step done (or, in a dry run, would).
func doneOrWould(outcome string) bool {
	switch outcome {
	case OutcomeSent, OutcomeAlready, OutcomeJournal, OutcomeWould:
		return true
	}
	return false
}

// whyLeft says why step st (its outcome r, when it ran) leaves its findings: "" when it does
// not (done, or a manual step on an object a done step deleted: its findings are gone with
// it), else manual, not-reached, kept-old or, for a step held, what held it (whyOf: the
// earlier steps').
func whyLeft(st migrate.Step, r StepResult, ran bool, deleted map[string]bool, whyOf map[string]string) string {
	switch {
	case st.Manual && deleted[objectOf(st.ID)]:
		return ""
	case st.Manual:
		return "manual"
	case !ran:
		return "not-reached" // a scope an interrupted run never started
	case r.Outcome == OutcomeHeld && r.Reason == keepOldReason:
		return "kept-old"
	case r.Outcome == OutcomeHeld:
		return heldFor(st, whyOf)
	case r.Outcome == OutcomeStopped || r.Outcome == OutcomeNotReach:
		return "not-reached"
	}
	return ""
}

// goneAfter reports whether a finding of the zone scope sc is no longer reported once the
// objects deleted are gone (Rescan.After, read once, when a review step asks).
func goneAfter(sc scope, deleted map[string]bool, rescan *Rescan) func(fp string) bool {
	var after map[string]bool
	read := false
	return func(fp string) bool {
		if rescan.After == nil || sc.kind != "zone" {
			return false
		}
		if !read {
			after, read = rescan.After(sc.id, deleted), true
		}
		return after != nil && !after[fp]
	}
}

// objectOf is the object id of a step id, "<kind>:<object id>" ("" when it names none).
func objectOf(id string) string {
	if _, obj, ok := strings.Cut(id, ":"); ok {
		return obj
	}
	return ""
}

func countLeft(left map[string]string, replaced map[string]bool, severity func(string, bool) string) FindingsLeft {
	f := FindingsLeft{Total: len(left)}
	if severity != nil {
		f.BySeverity = map[string]int{}
	}
	for fp, why := range left {
		switch why {
		case "manual":
			f.Manual++
		case "kept-old":
			f.KeptOld++
		case "not-reached":
			f.NotReached++
		default:
			f.NoStep++
		}
		if severity != nil {
			// Only what is left for a manual step is eased by a replacement: an old object
			// kept or not reached is still there in full.
			f.BySeverity[severity(fp, why == "manual" && replaced[fp])]++
		}
	}
	return f
}

// manualCounts sorts the manual steps' kinds, most first, then by kind.
func manualCounts(byKind map[string]int) ([]ManualCount, int) {
	out := []ManualCount{}
	total := 0
	for k, n := range byKind {
		out = append(out, ManualCount{Kind: k, What: manualWords(k), Count: n})
		total += n
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out, total
}

// manualWords says what a manual step of a kind asks of the operator.
func manualWords(kind string) string {
	switch migrate.StepKind(kind) {
	case migrate.KindAccountSettingsStop:
		return "stop using the old account settings fields"
	case migrate.KindTunnelMove:
		return "manage a tunnel through the tunnel API"
	case migrate.KindDNSSettingsStopOld:
		return "stop using an old DNS settings endpoint"
	case migrate.KindDNSRecordReview:
		return "resolve a DNS record's SRV name conflict"
	case migrate.KindDNSRecordStopReading:
		return "stop reading old fields of DNS record responses"
	case migrate.KindRateLimitKeep:
		return "keep a rate limit until it can be migrated"
	case migrate.KindFirewallRuleKeep:
		return "keep a firewall rule until it can be migrated"
	case migrate.KindExpressionReview:
		return "review a rule's expression"
	case migrate.KindZoneSettingStop:
		return "stop using a deprecated zone setting"
	case migrate.KindWAFOverrideKeep:
		return "re-create a WAF override by hand, then delete it"
	case migrate.KindFindingReview:
		return "review a finding no step settles"
	}
	return "carry out " + kind
}
