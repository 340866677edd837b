package reports

import (
	"errors"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
)

// spilledView is p's zones in a spill (as a scan keeps them) and the view over them.
func spilledView(t testing.TB, p *migrate.Plan) (*migrate.Spill, migrate.PlanView) {
	t.Helper()
	sp, err := migrate.NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Close() })
	for _, z := range p.Zones {
		if err := sp.Add(z.ZoneID, z, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	return sp, sp.View(p.Head())
}

// TestSpilledPlanRendersAsWhole checks the HTML page (full and compact) and the Markdown
// report (whole and cut by its size limit) rendered from a plan whose zones are in a spill
// are byte for byte those rendered from the whole plan.
func TestSpilledPlanRendersAsWhole(t *testing.T) {
	demoRep, demoPlan := readFixtureReport(t, "demo-report.json"), readFixturePlan(t, "demo-plan.json")
	scaleRep, scalePlan := scaleFixture()
	_, demoView := spilledView(t, demoPlan)
	_, scaleView := spilledView(t, scalePlan)
	if compactPage(demoRep.Findings.Len(), demoView) || !compactPage(scaleRep.Findings.Len(), scaleView) {
		t.Fatal("the demo page should be full and the 200-zone page compact")
	}
	for _, c := range []struct {
		name        string
		whole, view Reporter
		rep         *Report
		want        string // what the output must hold, so that it shows the plan
	}{
		{"html full", HTML{Plan: demoPlan}, HTML{Plan: demoView}, demoRep, `id="plan-zone-`},
		{"html compact", HTML{Plan: scalePlan}, HTML{Plan: scaleView}, scaleRep, `id="plan-zone-`},
		{"markdown", Markdown{Plan: demoPlan}, Markdown{Plan: demoView}, demoRep, "<summary>Zone "},
		{"markdown cut", Markdown{MaxBytes: 64 << 10, Plan: demoPlan}, Markdown{MaxBytes: 64 << 10, Plan: demoView}, demoRep, "of the plan left out**"},
		{"markdown large", Markdown{Plan: scalePlan, PlanDir: "out"}, Markdown{Plan: scaleView, PlanDir: "out"}, scaleRep, "of the plan left out**"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := renderReporter(t, c.whole, c.rep)
			if !strings.Contains(want, c.want) {
				t.Fatalf("the report does not hold %q", c.want)
			}
			if got := renderReporter(t, c.view, c.rep); got != want {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("from the spill: %d bytes, from the whole plan: %d; first difference at byte %d: %.200q", len(got), len(want), i, got[i:])
			}
		})
	}
}

// errRead is the read failure failingView injects.
var errRead = errors.New("injected read failure")

// failingView is a plan view whose failAt-th pass over the zones (EachZone, counted from
// 1) fails after the first zone.
type failingView struct {
	migrate.PlanView
	failAt, passes int
}

func (v *failingView) EachZone(fn func(*migrate.ZonePlan) error) error {
	v.passes++
	if v.passes != v.failAt {
		return v.PlanView.EachZone(fn)
	}
	first := true
	return v.PlanView.EachZone(func(z *migrate.ZonePlan) error {
		if !first {
			return errRead
		}
		first = false
		return fn(z)
	})
}

// TestPlanReadFailureFailsTheReport checks a failure to read the plan's zones, whenever it
// comes (before the page, or while the template ranges over the sections), is the error of
// the report's Write; and so is the read of a closed spill.
func TestPlanReadFailureFailsTheReport(t *testing.T) {
	rep, plan := readFixtureReport(t, "demo-report.json"), readFixturePlan(t, "demo-plan.json")
	if plan.ZoneCount() < 2 {
		t.Fatal("the demo plan needs two zones")
	}
	// The HTML page reads the zones three times (what to do first and the overview, the
	// index, the sections); Markdown once.
	cases := map[string]func() Reporter{
		"html page":     func() Reporter { return HTML{Plan: &failingView{PlanView: plan, failAt: 1}} },
		"html index":    func() Reporter { return HTML{Plan: &failingView{PlanView: plan, failAt: 2}} },
		"html sections": func() Reporter { return HTML{Plan: &failingView{PlanView: plan, failAt: 3}} },
		"markdown":      func() Reporter { return Markdown{Plan: &failingView{PlanView: plan, failAt: 1}} },
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := r().Write(&b, rep); !errors.Is(err, errRead) {
				t.Errorf("Write = %v, want the read failure", err)
			}
		})
	}
	sp, view := spilledView(t, plan)
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Reporter{HTML{Plan: view}, Markdown{Plan: view}} {
		var b strings.Builder
		if err := r.Write(&b, rep); err == nil {
			t.Errorf("%T wrote a report from a closed spill", r)
		}
	}
}

// BenchmarkHTMLAt200ZonesFromSpill renders the page of 200 zones with its plan read from a
// spill, as a scan renders it: beside BenchmarkHTMLAt200Zones, the cost of reading the zones
// back (two passes: the page's summaries, the sections; a compact page has no index).
func BenchmarkHTMLAt200ZonesFromSpill(b *testing.B) {
	rep, p := scaleFixture()
	_, view := spilledView(b, p)
	b.ReportAllocs()
	for b.Loop() {
		var w countingWriter
		if err := (HTML{Plan: view}).Write(&w, rep); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(w))
	}
}
