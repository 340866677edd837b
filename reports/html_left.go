package reports

import (
	"fmt"
	"math"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// leftFirst is how many of "what to do first" the top of the page names.
const leftFirst = 3

// htmlLeft is the top of the page, for whoever decides what happens next: in words, what is
// past or near its end of life; what is left to do (the plan's steps that sunset apply carries
// out, and the time the apply takes at the API's budget; the steps a person does); by when;
// the zones to start with; and, for CI, the gate.
type htmlLeft struct {
	Headline string
	Facts    []htmlCard
	First    []htmlLeftFirst
	// Gate is the --fail-on gate's outcome with its count, the last line: CI's word, not
	// the page's first.
	Gate *htmlGate
}

// htmlLeftFirst is one zone or account to start with.
type htmlLeftFirst struct {
	Title, Href, What string
}

// leftCounter adds up what a plan leaves to do, scope by scope, as the page's one pass over
// the plan's zones reaches them.
type leftCounter struct {
	planned               bool
	auto, byHand, blocked int
	requests              int
	errorEOL, warningEOL  string
	errors, warnings      int
	// where says where the findings of a severity are: "in 189 zones", "in 3 files".
	where map[scanner.Severity]string
}

// newLeft starts the count of plan v (nil for none): the accounts' steps at once, the zones'
// as they come (zone).
func newLeft(v migrate.PlanView) *leftCounter {
	lc := &leftCounter{planned: v != nil}
	if v != nil {
		head := v.Head()
		for _, a := range head.Accounts {
			lc.steps(a.Steps)
		}
		lc.requests += apply.EstimateRequests(&migrate.Plan{Accounts: head.Accounts}, false)
	}
	return lc
}

// zone adds one zone of the plan: its steps, and the requests its apply sends.
func (lc *leftCounter) zone(z *migrate.ZonePlan) {
	lc.steps(z.Steps)
	lc.requests += apply.EstimateRequests(&migrate.Plan{Zones: []migrate.ZonePlan{*z}}, false)
}

// steps counts steps: by API calls, by hand, and by hand keeping an old object (blocked).
func (lc *leftCounter) steps(steps []migrate.Step) {
	for _, st := range steps {
		switch {
		case !st.Manual:
			lc.auto++
		case blockerTag(st) != "":
			lc.blocked++
			lc.byHand++
		default:
			lc.byHand++
		}
	}
}

// finish writes the top of the page from the counts, the report's summary and groups, and
// the ranked entries of "what to do first".
func (lc *leftCounter) finish(r *Report, groups []*htmlGroup, first *htmlFirst) *htmlLeft {
	lc.where = map[scanner.Severity]string{}
	for _, sev := range []scanner.Severity{scanner.SeverityError, scanner.SeverityWarning} {
		var with []*htmlGroup // the groups with findings of sev, to say where they are
		for _, g := range groups {
			if g.Counts.of(sev) > 0 {
				with = append(with, g)
			}
		}
		if kinds, n := countByKind(with, func(g *htmlGroup) string { return g.Kind }); len(kinds) > 0 {
			lc.where[sev] = " in " + sayKinds(kinds, n, sayCounted)
		}
	}
	for _, g := range groups {
		lc.errorEOL = earliest(lc.errorEOL, g.eols[scanner.SeverityError])
		lc.warningEOL = earliest(lc.warningEOL, g.eols[scanner.SeverityWarning])
	}
	lc.errors, lc.warnings = r.Summary.BySeverity.Error, r.Summary.BySeverity.Warning
	left := &htmlLeft{Headline: lc.headline(r.Summary), Facts: lc.facts(), Gate: gateBanner(r.Summary)}
	if first != nil {
		for _, e := range first.Entries[:min(leftFirst, len(first.Entries))] {
			left.First = append(left.First, htmlLeftFirst{Title: e.Title, Href: fmt.Sprintf("#first-%d", e.Rank), What: firstWhat(&e)})
		}
	}
	return left
}

// earliest is the earlier of two YYYY-MM-DD dates, "" counting as none.
func earliest(a, b string) string {
	if a == "" || (b != "" && b < a) {
		return b
	}
	return a
}

// headline says in a sentence what the findings amount to.
func (lc *leftCounter) headline(s Summary) string {
	switch {
	case lc.errors > 0:
		line := fmt.Sprintf("%s%s use API features past their end of life: they may stop working at any time and must move to their replacements.",
			Plural(lc.errors, "object", "objects"), lc.where[scanner.SeverityError])
		if lc.warnings > 0 {
			line += fmt.Sprintf(" %d more reach their end of life from %s.", lc.warnings, lc.warningEOL)
		}
		return line
	case lc.warnings > 0:
		return fmt.Sprintf("%s%s use API features that reach their end of life from %s: move them before then.",
			Plural(lc.warnings, "object", "objects"), lc.where[scanner.SeverityWarning], lc.warningEOL)
	case s.BySeverity.Notice > 0:
		return "Nothing is past or near its end of life: " + Plural(s.BySeverity.Notice, "notice is", "notices are") + " advice."
	}
	return "Nothing deprecated was found."
}

// facts are the cards of what is left: the steps by API calls and the apply's time, the
// steps by hand, and by when.
func (lc *leftCounter) facts() []htmlCard {
	var cards []htmlCard
	if lc.planned {
		cards = append(cards,
			htmlCard{Key: "auto", Label: "steps sunset apply carries out", Value: fmt.Sprint(lc.auto),
				Note: fmt.Sprintf("%s, %s at the API's budget of 1,200 requests per 5 minutes", Plural(lc.requests, "request", "requests"), aboutTime(lc.requests))},
			htmlCard{Key: "by-hand", Label: "steps by hand", Value: fmt.Sprint(lc.byHand),
				Note: Plural(lc.blocked, "keeps", "keep") + " an old object until unblocked"})
	} else {
		cards = append(cards, htmlCard{Key: "steps", Label: "steps left", Value: "–",
			Note: "write the plan (sunset scan --plan-dir DIR) to see them and the apply's time"})
	}
	switch {
	case lc.errorEOL != "":
		cards = append(cards, htmlCard{Key: "by-when", Label: "past end of life since", Value: lc.errorEOL, Class: "date sev-error",
			Note: "migrate now: the old API can stop answering any day"})
	case lc.warningEOL != "":
		cards = append(cards, htmlCard{Key: "by-when", Label: "end of life, the first", Value: lc.warningEOL, Class: "date sev-warning",
			Note: "migrate before then"})
	}
	return cards
}

// aboutTime says how long requests take at the API's budget (cfapi.DefaultRPS), rounded
// for people: "about 20 minutes", "about 4.3 hours".
func aboutTime(requests int) string {
	d := time.Duration(math.Ceil(float64(requests)/cfapi.DefaultRPS)) * time.Second
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < 90*time.Minute:
		return "about " + Plural(int(math.Round(d.Minutes())), "minute", "minutes")
	}
	return fmt.Sprintf("about %.1f hours", d.Hours())
}

// firstWhat says what one of the first zones holds and what its plan does about it.
func firstWhat(e *htmlFirstEntry) string {
	what := Plural(e.stake.objects, "object", "objects")
	switch severityOf(e.Worst) {
	case scanner.SeverityError:
		what += " past end of life"
		if e.EOL != "" {
			what += " since " + e.EOL
		}
	case scanner.SeverityWarning:
		what += " reaching end of life on " + e.EOL
	default:
		what = "advice only"
	}
	if e.Planned {
		what += fmt.Sprintf("; %s by sunset apply, %s by hand", Plural(e.AutoSteps, "step", "steps"), Plural(e.ByHandN+e.BlockedN, "step", "steps"))
		if e.BlockedN > 0 {
			what += fmt.Sprintf(" (%d blocked)", e.BlockedN)
		}
	}
	return what
}
