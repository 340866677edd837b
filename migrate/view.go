package migrate

// PlanView is a plan read a zone at a time: a whole Plan, or one whose zones are in a spill
// (Spill.View). Reports render from it so that a scan's plan is never read back whole.
type PlanView interface {
	// Head is the plan without its zones: accounts, summary, unplanned, as_of, source.
	Head() *Plan
	// ZoneCount is the number of zones, ZoneSteps the number of their steps; neither reads
	// the zones.
	ZoneCount() int
	ZoneSteps() int
	// ZoneKeys calls fn with each zone's id and name, in plan order, without reading it.
	ZoneKeys(fn func(id, name string))
	// EachZone calls fn with each zone's plan in plan order, one at a time; fn must not
	// keep it. It returns fn's error, or the failure to read a zone.
	EachZone(fn func(*ZonePlan) error) error
}

// Head implements PlanView: the plan without its zones (a shallow copy).
func (p *Plan) Head() *Plan {
	h := *p
	h.Zones = nil
	return &h
}

// ZoneCount implements PlanView.
func (p *Plan) ZoneCount() int { return len(p.Zones) }

// ZoneSteps implements PlanView.
func (p *Plan) ZoneSteps() int {
	n := 0
	for i := range p.Zones {
		n += len(p.Zones[i].Steps)
	}
	return n
}

// ZoneKeys implements PlanView.
func (p *Plan) ZoneKeys(fn func(id, name string)) {
	for i := range p.Zones {
		fn(p.Zones[i].ZoneID, p.Zones[i].ZoneName)
	}
}

// EachZone implements PlanView.
func (p *Plan) EachZone(fn func(*ZonePlan) error) error {
	for i := range p.Zones {
		if err := fn(&p.Zones[i]); err != nil {
			return err
		}
	}
	return nil
}

// View is the spilled plan as a PlanView, head being Finish's plan: its zones are read from
// the spill as they are asked for. The view is valid until the spill is closed.
func (s *Spill) View(head *Plan) PlanView { return spillView{s: s, head: head} }

// spillView is Spill.View.
type spillView struct {
	s    *Spill
	head *Plan
}

func (v spillView) Head() *Plan { return v.head.Head() }

func (v spillView) ZoneCount() int {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	return len(v.s.zones)
}

func (v spillView) ZoneSteps() int {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	n := 0
	for _, z := range v.s.zones {
		n += z.steps
	}
	return n
}

func (v spillView) ZoneKeys(fn func(id, name string)) {
	if v.s.sorted() != nil {
		return // EachZone reports the failure
	}
	for _, z := range v.s.zones {
		fn(z.id, z.name)
	}
}

func (v spillView) EachZone(fn func(*ZonePlan) error) error { return v.s.Zones(fn) }
