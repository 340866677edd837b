package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// BuildZone is Build for one zone: its plan from its findings (those of a scan of the zone
// alone, as scanner.ScanSnapshot gives them), false when it has no step, and the fingerprints
// of its live findings no step took. A zone plans alone (no translator reads another zone or
// the account), so the plans of an account's zones one at a time are Build's zones.
func BuildZone(z *inventory.ZoneInventory, findings []scanner.Finding, opts Options) (ZonePlan, bool, []string) {
	env := newBuildEnv(findings, opts)
	zp, ok := env.zonePlan(z)
	var unplanned []string
	for _, f := range findings {
		if (f.Source == "" || f.Source == scanner.SourceLive) && !env.ix.used[f.Fingerprint] {
			unplanned = append(unplanned, f.Fingerprint)
		}
	}
	if ok {
		zp.finish()
	}
	return zp, ok, unplanned
}

// newBuildEnv is the environment Build and BuildZone share.
func newBuildEnv(findings []scanner.Finding, opts Options) buildEnv {
	env := buildEnv{ix: newFindingIndex(findings), cat: opts.Catalog, asOf: opts.AsOf}
	if env.cat == nil {
		env.cat = catalog.Default()
	}
	return env
}

// Fragments keeps byte strings in a temporary file, each found again by its key: what a
// collection hands over one at a time and what is written in another order at the end.
// Add is safe for concurrent use; Close frees the file.
type Fragments struct {
	mu  sync.Mutex
	f   *safefile.Temp
	w   *bufio.Writer
	off int64
	at  map[string][2]int64 // key -> offset, length
}

// NewFragments opens a temporary file in dir ("" is the system's temporary directory).
func NewFragments(dir string) (*Fragments, error) {
	f, err := safefile.NewTemp(dir, "sunset-*.spill")
	if err != nil {
		return nil, err
	}
	return &Fragments{f: f, w: bufio.NewWriterSize(f, 1<<16), at: map[string][2]int64{}}, nil
}

// Add keeps b under key (a key added again points at the new bytes).
func (fr *Fragments) Add(key string, b []byte) error {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if _, err := fr.w.Write(b); err != nil {
		return err
	}
	fr.at[key] = [2]int64{fr.off, int64(len(b))}
	fr.off += int64(len(b))
	return nil
}

// AddJSON keeps v's compact JSON under key (HTML characters escaped when escapeHTML, as
// json.Encoder does by default), IndentJSON indents it as it is written out: compact, the
// encoding is one pass into encoding/json's pooled buffer, with no second, indented copy.
func (fr *Fragments) AddJSON(key string, v any, escapeHTML bool) error {
	enc := json.NewEncoder(fragmentWriter{fr: fr, key: key})
	enc.SetEscapeHTML(escapeHTML)
	return enc.Encode(v)
}

// fragmentWriter is the writer of AddJSON: json.Encoder writes each value in one call,
// ended by a newline, which is not kept.
type fragmentWriter struct {
	fr  *Fragments
	key string
}

func (w fragmentWriter) Write(b []byte) (int, error) {
	if err := w.fr.Add(w.key, bytes.TrimSuffix(b, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// AddWith keeps under key what write writes. The fragments are locked meanwhile, so that
// what write writes is one run of the file.
func (fr *Fragments) AddWith(key string, write func(w io.Writer) error) error {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	cw := &countedWriter{w: fr.w}
	err := write(cw)
	if err == nil {
		fr.at[key] = [2]int64{fr.off, cw.n}
	}
	fr.off += cw.n // a failed write's bytes stay in the file, under no key
	return err
}

// countedWriter counts what goes through it.
type countedWriter struct {
	w io.Writer
	n int64
}

func (c *countedWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// stepsMarker is a zone plan's steps, empty, in its JSON as plan.json indents it: no string
// holds it (their quotes are escaped), and no member before it holds an object.
var stepsMarker = []byte(`"steps": []`)

// writeZoneJSON writes zp's JSON as plan.json holds it (Plan.WriteJSON's indentation at the
// depth of "zones", HTML not escaped, no newline after it) with its steps encoded one at a
// time: a zone of thousands of old rules has megabytes of steps, and encoding/json builds a
// whole value, then its indented copy, in memory before it writes any of it.
func writeZoneJSON(w io.Writer, zp *ZonePlan) error {
	var hb, sb bytes.Buffer
	encode := func(buf *bytes.Buffer, v any, prefix string) ([]byte, error) {
		buf.Reset()
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent(prefix, "  ")
		err := enc.Encode(v)
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
	}
	head := *zp
	if len(zp.Steps) > 0 {
		head.Steps = []Step{}
	}
	b, err := encode(&hb, head, zoneIndent)
	if err != nil || len(zp.Steps) == 0 {
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}
	at := bytes.Index(b, stepsMarker)
	if at < 0 {
		return fmt.Errorf("plan: zone %s: no steps in its JSON", zp.ZoneID)
	}
	split := at + len(stepsMarker) - 1 // before the closing bracket
	member, element := zoneIndent+"  ", zoneIndent+"    "
	if _, err := w.Write(b[:split]); err != nil {
		return err
	}
	for i := range zp.Steps {
		step, err := encode(&sb, &zp.Steps[i], element)
		if err != nil {
			return err
		}
		sep := ",\n" + element
		if i == 0 {
			sep = "\n" + element
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(step); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "\n"+member); err != nil {
		return err
	}
	_, err = w.Write(b[split:])
	return err
}

// CopyTo writes the bytes kept under key to w straight from the file, false when there are
// none: what is copied is never held whole.
func (fr *Fragments) CopyTo(w io.Writer, key string) (bool, error) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	loc, ok := fr.at[key]
	if !ok {
		return false, nil
	}
	if err := fr.w.Flush(); err != nil {
		return true, err
	}
	_, err := io.Copy(w, io.NewSectionReader(fr.f, loc[0], loc[1]))
	return true, err
}

// IndentJSON writes compact JSON (AddJSON's) to w as an Encoder with SetIndent(prefix,
// indent) would have written it, without the newline; dst is reused and returned.
func IndentJSON(w io.Writer, compact []byte, prefix, indent string, dst *bytes.Buffer) error {
	dst.Reset()
	if err := json.Indent(dst, compact, prefix, indent); err != nil {
		return err
	}
	_, err := w.Write(dst.Bytes())
	return err
}

// Get reads the bytes kept under key into buf (reused), false when there are none.
func (fr *Fragments) Get(key string, buf []byte) ([]byte, bool, error) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	loc, ok := fr.at[key]
	if !ok {
		return buf, false, nil
	}
	if err := fr.w.Flush(); err != nil {
		return buf, true, err
	}
	buf = slices.Grow(buf[:0], int(loc[1]))[:loc[1]] // reused, not allocated per read
	_, err := fr.f.ReadAt(buf, loc[0])
	return buf, true, err
}

// Close closes the file, which frees it.
func (fr *Fragments) Close() error {
	return fr.f.Close()
}

// Spill is a plan built a zone at a time: each zone's plan goes to a temporary file as
// soon as it is built (Add), and memory keeps only its name and summary. The whole plan is
// then written (WriteJSON, WriteMarkdown) or read back a zone at a time (Zones) in Build's
// order. Add is safe for concurrent use; Close frees the file.
type Spill struct {
	mu        sync.Mutex
	fr        *Fragments
	zones     []spilledZone
	inOrder   bool // zones are sorted: a view's read of one zone does not sort them again
	planned   map[string]bool
	unplanned []string
	err       error
}

// spilledZone is what memory keeps of a spilled zone's plan.
type spilledZone struct {
	name, id string
	summary  Summary
	steps    int // len of its Steps, for a view's step count
}

// NewSpill opens a spill in dir ("" is the system's temporary directory).
func NewSpill(dir string) (*Spill, error) {
	fr, err := NewFragments(dir)
	if err != nil {
		return nil, err
	}
	return &Spill{fr: fr, planned: map[string]bool{}}, nil
}

// Close frees the spill file.
func (s *Spill) Close() error { return s.fr.Close() }

// zoneIndent is the indentation of a zone inside plan.json (Plan.WriteJSON): the plan's
// members are at one level, the elements of "zones" at two.
const zoneIndent = "    "

// Add records the outcome of BuildZone for one zone: its plan when ok, and the
// fingerprints no step took. A zone added twice is an error.
func (s *Spill) Add(zoneID string, zp ZonePlan, ok bool, unplanned []string) error {
	s.mu.Lock()
	if s.planned[zoneID] {
		s.mu.Unlock()
		return fmt.Errorf("plan: zone %s planned twice", zoneID)
	}
	s.planned[zoneID] = true
	s.unplanned = append(s.unplanned, unplanned...)
	err := s.err
	s.mu.Unlock()
	if !ok || err != nil {
		return err
	}
	// Encoded outside the spill's lock (the fragments have their own): zones planned at
	// once encode at once. plan.json's indentation is put back as it is written.
	err = s.fr.AddWith(zoneID, func(w io.Writer) error { return writeZoneJSON(w, &zp) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return s.err
	}
	s.zones = append(s.zones, spilledZone{name: zp.ZoneName, id: zoneID, summary: zp.Summary, steps: len(zp.Steps)})
	s.inOrder = false
	return nil
}

// Zone builds the plan of one zone from its findings (BuildZone's: scanner.Live.ZoneFindings
// gives them as the scan goes), lets check fill in its verification when check is set
// (verify.Zone; migrate cannot import it), and adds it. It is what a scan hands each zone to
// as it is collected.
func (s *Spill) Zone(z *inventory.ZoneInventory, findings []scanner.Finding, opts Options, check func(*ZonePlan, *inventory.ZoneInventory)) error {
	zp, ok, unplanned := BuildZone(z, findings, opts)
	if ok && check != nil {
		check(&zp, z)
	}
	return s.Add(z.Zone.ID, zp, ok, unplanned)
}

// sorted sorts the spill's zones in Build's order (name, then id).
func (s *Spill) sorted() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.inOrder {
		return s.err
	}
	s.inOrder = true
	sort.SliceStable(s.zones, func(i, j int) bool {
		if s.zones[i].name != s.zones[j].name {
			return s.zones[i].name < s.zones[j].name
		}
		return s.zones[i].id < s.zones[j].id
	})
	return nil
}

// raw is the JSON of one spilled zone, as plan.json indents it.
func (s *Spill) raw(z spilledZone, buf []byte) ([]byte, error) {
	buf, _, err := s.fr.Get(z.id, buf)
	return buf, err
}

// maxKeptZoneBuffer is the largest buffer Zones keeps from one zone's text for the next:
// a zone of thousands of rules is megabytes of JSON, which would otherwise stay beside its
// decoded plan while fn renders it (the peak of BenchmarkScanPlanPeakRSS at 5,000 zones).
const maxKeptZoneBuffer = 1 << 20

// Zones calls fn with each zone's plan in plan order, one at a time; fn must not keep it.
func (s *Spill) Zones(fn func(*ZonePlan) error) error {
	if err := s.sorted(); err != nil {
		return err
	}
	var buf []byte
	for _, z := range s.zones {
		var err error
		if buf, err = s.raw(z, buf); err != nil {
			return err
		}
		var zp ZonePlan
		if err := json.Unmarshal(buf, &zp); err != nil {
			return err
		}
		if cap(buf) > maxKeptZoneBuffer {
			buf = nil // the zone is decoded: its text need not stand beside it while fn runs
		}
		if err := fn(&zp); err != nil {
			return err
		}
	}
	return nil
}

// EachSummary calls fn with each spilled zone's name and summary, in plan order, without
// reading the zones back.
func (s *Spill) EachSummary(fn func(zoneName string, sum Summary)) {
	if s.sorted() != nil {
		return // Zones and WriteJSON report the failure
	}
	for _, z := range s.zones {
		fn(z.name, z.summary)
	}
}

// Finish plans the snapshot's accounts from the scan's findings (read in order, once) and
// returns the plan without its zones (they stay in the spill): its accounts, summary (the
// zones' included) and the findings no step took, as Build would. Findings of the zones that
// went through Add were judged there and are not kept; the others (accounts, zones never
// planned, file findings) are few.
func (s *Spill) Finish(snap *inventory.Snapshot, findings *scanner.FindingList, opts Options) (*Plan, error) {
	if err := s.sorted(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var rest []scanner.Finding
	for _, f := range findings.All() {
		// A live finding of a spilled zone was judged there (its unplanned ones are in
		// s.unplanned); account steps read only the findings of their account.
		live := f.Source == "" || f.Source == scanner.SourceLive
		if !live || f.ZoneID == "" || !s.planned[f.ZoneID] {
			rest = append(rest, f)
		}
	}
	if err := findings.Err(); err != nil {
		return nil, err
	}
	env := newBuildEnv(rest, opts)
	p := newPlan(snap, env, opts)
	for _, f := range rest {
		if !env.ix.used[f.Fingerprint] {
			p.Unplanned = append(p.Unplanned, f.Fingerprint)
		}
	}
	p.Unplanned = append(p.Unplanned, s.unplanned...)
	p.finish()
	for _, z := range s.zones {
		p.Summary.add(z.summary)
	}
	return p, nil
}

// WriteJSON writes the plan as Plan.WriteJSON does, head being Finish's plan and the zones
// copied from the spill one at a time: the same bytes as the whole plan's.
func (s *Spill) WriteJSON(w io.Writer, head *Plan) error {
	if err := s.sorted(); err != nil {
		return err
	}
	var whole bytes.Buffer
	if err := head.WriteJSON(&whole); err != nil {
		return err
	}
	// The head has "zones": [] (no zone is held): the zones go between its brackets.
	marker := []byte("\n  \"zones\": [],\n")
	at := bytes.Index(whole.Bytes(), marker)
	if at < 0 || len(head.Zones) > 0 {
		return fmt.Errorf("plan: the head of a spilled plan holds zones")
	}
	bw := bufio.NewWriter(w)
	if len(s.zones) == 0 {
		_, _ = bw.Write(whole.Bytes())
		return bw.Flush()
	}
	_, _ = bw.Write(whole.Bytes()[:at])
	_, _ = bw.WriteString("\n  \"zones\": [\n" + zoneIndent)
	for i, z := range s.zones {
		if i > 0 {
			_, _ = bw.WriteString(",\n" + zoneIndent)
		}
		if _, err := s.fr.CopyTo(bw, z.id); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString("\n  ],\n")
	_, _ = bw.Write(whole.Bytes()[at+len(marker):])
	return bw.Flush()
}
