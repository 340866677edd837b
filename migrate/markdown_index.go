package migrate

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Thresholds of what plan.md says once rather than in every zone.
const (
	// minPatternScopes is how many accounts and zones must hold a step of the same text
	// (title, reason, note, checks, diffs, body) before it is said once, with their list.
	minPatternScopes = 3
	// minSharedLen: a reason or note at least minSharedLen bytes long that steps of
	// minPatternScopes accounts and zones or more say is said once and linked; shorter ones
	// stay inline, where they cost less than a link.
	minSharedLen = 80
)

// planScope is one account or zone of plan.md: its heading, the anchor of that heading, and
// what the index shows of it.
type planScope struct {
	kind    string // "Account" or "Zone"
	heading string // the Markdown after "## "
	// nameLine is set when the heading leaves the name out (see newPlanScope).
	nameLine bool
	name     string // the escaped name (else the id in code), for the index and the pattern lists
	anchor   string
	steps    []Step
	summary  Summary
	notes    []string
	verify   *Verification
	level    string
}

// planShared is what plan.md says once: step patterns (by their text, see patternKey) held
// by minPatternScopes scopes or more, with those scopes, and long reasons and notes that
// steps outside the patterns hold in as many scopes (see findTexts). Numbers count from 1 in order of first use.
type planShared struct {
	pattern       map[patternHash]int
	patternStep   []Step
	patternScopes [][]int // scope indexes per pattern
	text          map[string]int
	texts         []string
	uses          []int // uses per text (steps and verifications)
}

// planScopes lists the plan's accounts, then zones, with their headings and anchors.
func planScopes(p *Plan) []planScope {
	var scopes []planScope
	for _, a := range p.Accounts {
		scopes = append(scopes, newPlanScope("Account", a.AccountName, a.AccountID, "",
			planScope{steps: a.Steps, summary: a.Summary, notes: a.Notes}))
	}
	for i := range p.Zones {
		scopes = append(scopes, zoneScope(&p.Zones[i]))
	}
	return scopes
}

// zoneScope is a zone's planScope.
func zoneScope(z *ZonePlan) planScope {
	return newPlanScope("Zone", z.ZoneName, z.ZoneID, z.PlanLevel,
		planScope{steps: z.Steps, summary: z.Summary, notes: z.Notes, verify: z.Verification})
}

// newPlanScope fills in the heading and anchor of a scope: "Zone NAME (`ID`, LEVEL plan)".
// The anchor is the heading's GitHub slug, which GitLab makes alike unless it has a run of
// hyphens (GitLab folds runs into one, "xn--" included); then, and for a scope without a
// name, the heading is "Zone `ID`" and the name goes on the line below, so that links work
// on both.
func newPlanScope(kind, name, id, level string, s planScope) planScope {
	s.kind, s.level = kind, level
	if s.name = EscapeMarkdown(name); s.name == "" {
		s.name = code(id)
	}
	shown, plain := code(id), textsafe.Sanitize(id)
	if level != "" {
		shown += ", " + EscapeMarkdown(level) + " plan"
		plain += ", " + textsafe.Sanitize(level) + " plan"
	}
	s.heading = kind + " " + EscapeMarkdown(name) + " (" + shown + ")"
	s.anchor = githubSlug(kind + " " + textsafe.Sanitize(name) + " (" + plain + ")")
	if EscapeMarkdown(name) == "" || strings.Contains(s.anchor, "--") {
		s.heading, s.anchor = kind+" "+code(id), githubSlug(kind+" "+plain)
		s.nameLine = true
	}
	return s
}

// githubSlug is the anchor GitHub gives a heading of text t (as rendered): lower case,
// what is neither a word character (a letter, mark, decimal digit or connector such as
// '_'), '-' nor a space dropped, spaces made hyphens.
func githubSlug(t string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(t)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.In(r, unicode.M, unicode.Nd, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// patternKey is the text of a step that plan.md shows apart from where it applies (the
// call's path, the step's id, what it depends on and resolves): steps of the same key read
// the same in every zone.
func patternKey(st Step) string {
	b, err := json.Marshal([]any{changeSymbol(st), st.Title, st.Reason, st.Note, st.Checks, st.Diffs, st.Body, st.Risk, st.Derived})
	if err != nil {
		return ""
	}
	return string(b)
}

// patternHash is a step's patternKey hashed: plan.md's first pass keeps one per distinct
// step of the plan (most steps of a large account are distinct: a million at 50,000 zones),
// and a key holds the step's body. Half a SHA-256 keeps two texts apart as surely for this.
type patternHash [sha256.Size / 2]byte

// patternID is the hash of the step's patternKey.
func patternID(st Step) patternHash {
	sum := sha256.Sum256([]byte(patternKey(st)))
	return patternHash(sum[:sha256.Size/2])
}

// patternFinder finds the step patterns of plan.md (see planShared) from the scopes given
// one at a time, in order: which scopes hold each step text and where it is first. Most
// patterns stay in one scope (a million distinct steps at 50,000 zones), so first holds 24
// bytes a pattern and no more; only a pattern another scope holds too gets its scopes.
type patternFinder struct {
	first  map[patternHash][2]int32 // the scope and step index of each pattern's first step
	scopes map[patternHash][]int32  // every scope holding a pattern, once two do
}

func newPatternFinder() *patternFinder {
	return &patternFinder{first: map[patternHash][2]int32{}, scopes: map[patternHash][]int32{}}
}

// scope records the steps of scope si (scopes come in order, each once).
func (f *patternFinder) scope(si int, steps []Step) {
	at := int32(si) //nolint:gosec // a plan holds far fewer than 2^31 scopes and steps
	for i, st := range steps {
		k := patternID(st)
		first, seen := f.first[k]
		if !seen {
			f.first[k] = [2]int32{at, int32(i)} //nolint:gosec // as above
			continue
		}
		switch in := f.scopes[k]; {
		case in == nil && first[0] != at:
			f.scopes[k] = []int32{first[0], at}
		case in != nil && in[len(in)-1] != at:
			f.scopes[k] = append(in, at)
		}
	}
}

// shared numbers the patterns held by minPatternScopes scopes or more, in the order of their
// first steps (scopes come in order, so that is the order they were first seen in); their
// steps are filled in by sharedFinder.scope (they are where first says).
func (f *patternFinder) shared() (planShared, map[[2]int]int) {
	sh := planShared{pattern: map[patternHash]int{}, text: map[string]int{}}
	var keys []patternHash
	for k, in := range f.scopes {
		if len(in) >= minPatternScopes {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b patternHash) int {
		x, y := f.first[a], f.first[b]
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	need := map[[2]int]int{}
	for _, k := range keys {
		in, first := f.scopes[k], f.first[k]
		scopes := make([]int, len(in))
		for i, si := range in {
			scopes[i] = int(si)
		}
		sh.patternStep = append(sh.patternStep, Step{})
		sh.patternScopes = append(sh.patternScopes, scopes)
		sh.pattern[k] = len(sh.patternStep)
		need[[2]int{int(first[0]), int(first[1])}] = len(sh.patternStep)
	}
	return sh, need
}

// sharedFinder is plan.md's second pass: the patterns' steps and the shared texts.
type sharedFinder struct {
	sh   *planShared
	need map[[2]int]int // scope and step index -> pattern number
	// uses, the last scope and the scopes of each long text, in order of first use.
	uses, last, in map[string]int
	order          []string
}

func newSharedFinder(sh *planShared, need map[[2]int]int) *sharedFinder {
	return &sharedFinder{sh: sh, need: need, uses: map[string]int{}, last: map[string]int{}, in: map[string]int{}}
}

// scope takes the pattern steps scope si holds first and counts its long reasons and notes:
// those that steps outside the patterns, and zones' verifications, share across
// minPatternScopes accounts and zones or more are numbered (done); within one zone a text
// said a few times reads better in place than behind a link.
func (f *sharedFinder) scope(si int, s planScope) {
	var texts []string
	if s.verify != nil {
		texts = append(texts, s.verify.Notes...)
	}
	for i, st := range s.steps {
		if n, ok := f.need[[2]int{si, i}]; ok {
			f.sh.patternStep[n-1] = st
		}
		if f.sh.pattern[patternID(st)] == 0 {
			texts = append(texts, st.Reason, st.Note)
		}
	}
	for _, t := range texts {
		if len(t) < minSharedLen {
			continue
		}
		if f.uses[t] == 0 {
			f.order = append(f.order, t)
		}
		if f.uses[t] == 0 || f.last[t] != si {
			f.in[t]++
		}
		f.uses[t]++
		f.last[t] = si
	}
}

// done numbers the shared texts.
func (f *sharedFinder) done() {
	for _, t := range f.order {
		if f.in[t] >= minPatternScopes {
			f.sh.texts, f.sh.uses = append(f.sh.texts, t), append(f.sh.uses, f.uses[t])
			f.sh.text[t] = len(f.sh.texts)
		}
	}
}

// textRef is a reason or note as a step shows it: the text, or a link to where it is said
// once.
func (sh *planShared) textRef(t string) string {
	if n := sh.text[t]; n > 0 {
		return fmt.Sprintf("see [%s](#%s) (the same in %d places).", strings.ToLower(textName(n)), githubSlug(textName(n)), sh.uses[n-1])
	}
	return EscapeMarkdown(t)
}

// textName and patternName are the headings of the texts and patterns said once.
func textName(n int) string    { return "Text " + strconv.Itoa(n) }
func patternName(n int) string { return "Step pattern " + strconv.Itoa(n) }

// scopeLine is what plan.md's index and lists keep of a scope once its steps are gone.
type scopeLine struct {
	kind, name, anchor, level string
	summary                   Summary
	steps, findings           int
	verification              string // "-" when not verified
}

// lineOf is the scope's scopeLine.
func lineOf(s planScope) scopeLine {
	verification := "-"
	if s.verify != nil {
		verification = EscapeMarkdown(s.verify.VerificationLine())
	}
	return scopeLine{kind: s.kind, name: s.name, anchor: s.anchor, level: s.level, summary: s.summary,
		steps: len(s.steps), findings: findingsOf(s.steps), verification: verification}
}

// writeIndex writes the table of accounts and zones with their counts, each linked to its
// section.
func writeIndex(w io.Writer, scopes []scopeLine) {
	fmt.Fprintf(w, "## Index\n\n| Account or zone | Steps | By API | Manual | Create | Change | Pause | Delete | Verify | Findings | Verification |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range scopes {
		label := s.kind + " " + s.name
		if s.level != "" {
			label += " (" + EscapeMarkdown(s.level) + ")"
		}
		sum := s.summary
		fmt.Fprintf(w, "| [%s](#%s) | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", label, s.anchor, s.steps,
			s.steps-sum.Manual, sum.Manual, sum.Create, sum.Change, sum.Pause, sum.Delete, sum.Verify, s.findings, s.verification)
	}
	fmt.Fprintln(w)
}

// findingsOf counts the distinct findings a scope's steps resolve.
func findingsOf(steps []Step) int {
	seen := map[string]bool{}
	for _, st := range steps {
		for _, f := range st.Resolves {
			seen[f] = true
		}
	}
	return len(seen)
}

// writeShared writes what is said once: each step pattern with the accounts and zones that
// hold it, then each shared reason or note.
func writeShared(w io.Writer, scopes []scopeLine, sh planShared) {
	if len(sh.patternStep) == 0 && len(sh.texts) == 0 {
		return
	}
	fmt.Fprintf(w, "## Said once for many steps\n\n")
	fmt.Fprintf(w, "Steps that read the same in %d or more accounts and zones, and long reasons and notes that steps in as many share, "+
		"are written here once; the sections below link to them.\n\n", minPatternScopes)
	for i, st := range sh.patternStep {
		fmt.Fprintf(w, "### %s\n\n`%s` %s\n\n", patternName(i+1), changeSymbol(st), EscapeMarkdown(st.Title))
		var where []string
		for _, si := range sh.patternScopes[i] {
			where = append(where, "["+scopes[si].name+"](#"+scopes[si].anchor+")")
		}
		fmt.Fprintf(w, "In %s: %s.\n\n", plural(len(where), "account or zone", "accounts and zones"), strings.Join(where, ", "))
		writeStepText(w, st, nil, "")
		fmt.Fprintf(w, "Each zone's step keeps its own call, id, order and findings.\n\n")
	}
	for i, t := range sh.texts {
		fmt.Fprintf(w, "### %s\n\n%s\n\n", textName(i+1), EscapeMarkdownAs(t, MarkdownLineStart))
	}
}
