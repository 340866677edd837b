package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// planStream plans a scan's zones one at a time as they are collected (migrate.Spill), so
// that memory holds neither the account nor the whole plan's zones; with a plan directory it
// also keeps each collected zone's JSON in a temporary file for snapshot.json.
type planStream struct {
	opts migrate.Options
	// where names what shows the verification ("" when nothing does: not verified).
	where string
	plan  *migrate.Spill
	// snap keeps the JSON of each zone handed over, for snapshot.json; nil without a plan
	// directory.
	snap *migrate.Fragments
	// busy bounds the zones planned at once to the processors: planning and verifying are
	// processor work, so more at once than processors only holds more memory. A zone with
	// a large plan (heavyZone) takes every place: the plans and verifications of two zones
	// of thousands of rules at once were most of a scan's peak memory (issue 39).
	busy  *semaphore.Weighted
	slots int64
	// queue counts the zones handed over that wait for a place in busy: the collection
	// starts no zone while as many wait as there are places (admit).
	queue backlog
	mu    sync.Mutex
	err   error // the first failure of a zone's hand-over
}

// newPlanStream starts the plan of a scan that writes it to o.planDir or shows it in a
// report; nil when nothing does.
func newPlanStream(o *scanOptions) (*planStream, error) {
	if o.planDir == "" && !showsPlan(o.formats) {
		return nil, nil
	}
	ps := &planStream{opts: migrate.Options{AsOf: o.asOf, Catalog: o.catalog}, slots: int64(runtime.GOMAXPROCS(0))}
	ps.busy, ps.queue.max = semaphore.NewWeighted(ps.slots), runtime.GOMAXPROCS(0)
	if o.verify {
		// Whether a report shows it does not depend on the plan's content.
		ps.where = verificationShownIn(o.planDir, o.formats, &migrate.Plan{})
	}
	var err error
	if ps.plan, err = migrate.NewSpill(""); err != nil {
		return nil, fatalError(fmt.Errorf("cannot plan: %w", err))
	}
	if o.planDir != "" {
		if ps.snap, err = migrate.NewFragments(""); err != nil {
			_ = ps.plan.Close()
			return nil, fatalError(fmt.Errorf("cannot plan: %w", err))
		}
	}
	return ps, nil
}

// close removes the temporary files.
func (ps *planStream) close() {
	_ = ps.plan.Close()
	if ps.snap != nil {
		_ = ps.snap.Close()
	}
}

// zone plans (and verifies) one zone from its findings (scanner.Live.ZoneFindings);
// handedOver says the collection drops its objects after this, so the plan directory's
// snapshot keeps them here. Safe for concurrent use.
func (ps *planStream) zone(z *inventory.ZoneInventory, findings []scanner.Finding, handedOver bool) {
	var check func(*migrate.ZonePlan, *inventory.ZoneInventory)
	if ps.where != "" {
		check = func(zp *migrate.ZonePlan, z *inventory.ZoneInventory) { zp.Verification = verify.Zone(zp, z) }
	}
	places := ps.places(z)
	ps.queue.enter()
	_ = ps.busy.Acquire(context.Background(), places) // never fails without a deadline
	ps.queue.leave()
	err := ps.plan.Zone(z, findings, ps.opts, check)
	ps.busy.Release(places)
	if err == nil && handedOver && ps.snap != nil {
		err = ps.snap.AddJSON(z.Zone.ID, z, true) // as Snapshot.Write
	}
	if err != nil {
		ps.mu.Lock()
		if ps.err == nil {
			ps.err = err
		}
		ps.mu.Unlock()
	}
}

// heavyObjects is how many objects that each make steps (firewall rules, filters, rate
// limits, WAF overrides) make a zone's plan large: some 1,000 bytes of plan.json each, a few
// times that in memory while it is built, verified and encoded.
const heavyObjects = 200

// heavyZone says whether z's plan is large enough to be built alone (planStream.busy).
func heavyZone(z *inventory.ZoneInventory) bool {
	return len(z.FirewallRules)+len(z.Filters)+len(z.RateLimits)+len(z.WAFOverrides) >= heavyObjects
}

// places is how many of busy's places z's plan takes: all of them for a heavy zone.
func (ps *planStream) places(z *inventory.ZoneInventory) int64 {
	if heavyZone(z) {
		return ps.slots
	}
	return 1
}

// admit waits while the zones handed over that wait to be planned fill every place: the
// collection (collect.Options.Admit) then starts no zone, since planning and verifying are
// slower than reading when the API answers fast (--rps 0, or a small account), and each zone
// read ahead would be held whole until its turn.
func (ps *planStream) admit(ctx context.Context) error { return ps.queue.wait(ctx) }

// backlog is a count of waiting zones that others can wait on to fall below max.
type backlog struct {
	mu   sync.Mutex
	n    int
	max  int
	room chan struct{} // closed when n falls below max; nil while it is below
}

// enter counts one more zone waiting.
func (b *backlog) enter() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	if b.n == b.max {
		b.room = make(chan struct{})
	}
}

// leave counts one zone less, and wakes the waiters when that makes room.
func (b *backlog) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == b.max {
		close(b.room)
		b.room = nil
	}
	b.n--
}

// wait returns once fewer than max zones wait, or the context's error.
func (b *backlog) wait(ctx context.Context) error {
	for {
		b.mu.Lock()
		room := b.room
		b.mu.Unlock()
		if room == nil {
			return nil
		}
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// failure is the first failure of a zone's hand-over (writing the temporary files), nil
// while there is none.
func (ps *planStream) failure() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.err
}

// finish plans the accounts and returns the plan without its zones: what writes the plan
// directory from the spill, and the head of the view reports render from (view).
func (ps *planStream) finish(snap *inventory.Snapshot, findings *scanner.FindingList) (*migrate.Plan, error) {
	if ps.err != nil {
		return nil, fatalError(fmt.Errorf("cannot plan: %w", ps.err))
	}
	head, err := ps.plan.Finish(snap, findings, ps.opts)
	if err != nil {
		return nil, fatalError(fmt.Errorf("cannot plan: %w", err))
	}
	return head, nil
}

// view is the plan for the reports that show it: head (finish's) with the zones read from
// the spill as they are rendered, never the whole plan at once. Valid until close.
func (ps *planStream) view(head *migrate.Plan) migrate.PlanView { return ps.plan.View(head) }

// files is what writes the plan directory from the spill, a zone at a time.
func (ps *planStream) files(head *migrate.Plan, snap *inventory.Snapshot) planFiles {
	return planFiles{
		head:          head,
		json:          func(w io.Writer) error { return ps.plan.WriteJSON(w, head) },
		markdown:      func(w io.Writer) error { return ps.plan.WriteMarkdown(w, head) },
		snapshot:      func(w io.Writer) error { return ps.writeSnapshot(w, snap) },
		zones:         ps.plan.Zones,
		zoneSummaries: ps.plan.EachSummary,
	}
}

// finishAndReport is finish, then the verification's line to w when the plan was verified
// (only when something written shows the result).
func (ps *planStream) finishAndReport(w io.Writer, snap *inventory.Snapshot, findings *scanner.FindingList) (*migrate.Plan, error) {
	head, err := ps.finish(snap, findings)
	if err != nil {
		return nil, err
	}
	if ps.where != "" {
		if err := reportVerificationOf(w, ps.plan.Zones, ps.where); err != nil {
			return nil, fatalError(fmt.Errorf("cannot plan: %w", err))
		}
	}
	return head, nil
}

// writeSnapshot writes snap as Snapshot.Write would had the collection kept every zone:
// the zones handed over come from the spill.
func (ps *planStream) writeSnapshot(w io.Writer, snap *inventory.Snapshot) error {
	if ps.snap == nil || len(snap.Zones) == 0 {
		return snap.Write(w)
	}
	return writeSnapshotFrom(w, snap, ps.snap)
}

// snapshotZoneIndent is the indentation of a zone inside a snapshot file (Snapshot.Write).
const snapshotZoneIndent = "    "

// writeSnapshotFrom writes snap with the zones kept in fr whole, one at a time.
func writeSnapshotFrom(w io.Writer, snap *inventory.Snapshot, fr *migrate.Fragments) error {
	head := *snap
	head.Zones = []inventory.ZoneInventory{}
	var whole bytes.Buffer
	if err := head.Write(&whole); err != nil {
		return err
	}
	marker := []byte("\n  \"zones\": []")
	at := bytes.Index(whole.Bytes(), marker)
	if at < 0 {
		return fmt.Errorf("snapshot: no zones in %q", whole.String())
	}
	bw := bufio.NewWriter(w)
	_, _ = bw.Write(whole.Bytes()[:at])
	_, _ = bw.WriteString("\n  \"zones\": [")
	var (
		buf      []byte
		indented bytes.Buffer
	)
	for i := range snap.Zones {
		z := &snap.Zones[i]
		sep := ",\n" + snapshotZoneIndent
		if i == 0 {
			sep = "\n" + snapshotZoneIndent
		}
		_, _ = bw.WriteString(sep)
		var err error
		if buf, err = zoneJSON(fr, z, buf); err != nil {
			return err
		}
		if err := migrate.IndentJSON(bw, buf, snapshotZoneIndent, "  ", &indented); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString("\n  ]")
	_, _ = bw.Write(whole.Bytes()[at+len(marker):])
	return bw.Flush()
}

// zoneJSON is a zone's compact JSON: the kept one, or the zone as the snapshot holds it
// (never handed over: not started when the collection stopped). buf is reused.
func zoneJSON(fr *migrate.Fragments, z *inventory.ZoneInventory, buf []byte) ([]byte, error) {
	buf, ok, err := fr.Get(z.Zone.ID, buf)
	if ok || err != nil {
		return buf, err
	}
	var b bytes.Buffer
	err = json.NewEncoder(&b).Encode(z) // as Snapshot.Write, HTML escaped
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
