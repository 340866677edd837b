package inventory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// The stream snapshot format (JSON Lines), written while a scan runs so that a killed scan
// loses at most the zone being written:
//
//	{"format":"sunset-snapshot-stream","schema_version":1,"source":...,"taken_at":...,"taken_at_is":"collection start"}
//	{"zone":{...ZoneInventory}}          one per zone, flushed as soon as the zone is read
//	{"account":{...AccountInventory}}    one per account, when the run ends
//	{"end":{"incomplete":false,"accounts":N,"zones":M}}
//
// A resumed run appends to the same file: more zone lines, the accounts again, a drop line
// ({"drop":{"zones":[ids],"accounts":[ids]}}) for what the earlier lines hold and the
// resumed run no longer lists, and another end line. Later lines win (an account or zone
// read again replaces the earlier line); an end line followed by more lines no longer ends
// the stream. A last line without its newline was cut short by a kill and is ignored.
const (
	// StreamFormat is the header's format member.
	StreamFormat = "sunset-snapshot-stream"
	// StreamSchemaVersion is the version of the stream format written by this build.
	StreamSchemaVersion = 1
	// TakenAtCollectionStart says what a header's taken_at is: the wall clock when the
	// collection began (of the first run, when resumed). Not --as-of: that is a day to judge
	// deprecations by, not when the account was read. Every change after taken_at may be
	// missing from the snapshot, so an incremental rescan asks the audit log from it.
	TakenAtCollectionStart = "collection start"
)

// streamMagic starts every stream: the header's first member, as Marshal writes it.
var streamMagic = []byte(`{"format":"` + StreamFormat + `"`)

// ErrStreamHeaderCut is ReadStream's error for a stream killed before its header line was
// whole: nothing was collected, a resumed run starts afresh.
var ErrStreamHeaderCut = errors.New("snapshot: the stream's header line is cut short (the scan was killed as it began)")

// StreamHeader is the first line of a stream snapshot.
type StreamHeader struct {
	Format        string    `json:"format"`
	SchemaVersion int       `json:"schema_version"`
	Source        string    `json:"source,omitempty"`
	TakenAt       time.Time `json:"taken_at"`
	TakenAtIs     string    `json:"taken_at_is"`
}

type streamLine struct {
	Zone    *ZoneInventory    `json:"zone,omitempty"`
	Account *AccountInventory `json:"account,omitempty"`
	Drop    *streamDrop       `json:"drop,omitempty"`
	End     *streamEnd        `json:"end,omitempty"`
}

// streamDrop removes zones and accounts of earlier lines that a resumed run no longer lists.
type streamDrop struct {
	Zones    []string `json:"zones,omitempty"`
	Accounts []string `json:"accounts,omitempty"`
}

type streamEnd struct {
	Incomplete bool `json:"incomplete"`
	Accounts   int  `json:"accounts"`
	Zones      int  `json:"zones"`
}

// StreamWriter appends zones to a stream snapshot as they are collected. Its methods are
// safe for concurrent use (collect.Options.OnZone calls Zone from the workers). A write
// error is kept and returned by Err and Finish; later writes are skipped.
type StreamWriter struct {
	mu      sync.Mutex
	w       *bufio.Writer
	written map[string]bool // zone ids in the file: skipped by Zone, not repeated by Finish
	// earlier holds the ids of the zones and accounts of the lines a resumed run appends to;
	// Finish drops those the run no longer lists.
	earlier *Snapshot
	err     error
}

// NewStreamWriter starts a stream snapshot on w with its header line.
func NewStreamWriter(w io.Writer, source string, takenAt time.Time) (*StreamWriter, error) {
	sw := &StreamWriter{w: bufio.NewWriter(w), written: map[string]bool{}}
	sw.line(StreamHeader{Format: StreamFormat, SchemaVersion: StreamSchemaVersion, Source: source,
		TakenAt: takenAt.UTC(), TakenAtIs: TakenAtCollectionStart})
	return sw, sw.Err()
}

// AppendStreamWriter continues a stream snapshot read by ReadStream: w must be positioned
// at the stream's Valid offset. The zones the stream holds complete are not written again.
func AppendStreamWriter(w io.Writer, have *Stream) *StreamWriter {
	sw := &StreamWriter{w: bufio.NewWriter(w), written: map[string]bool{}, earlier: have.Snapshot}
	for id := range have.Complete {
		sw.written[id] = true
	}
	return sw
}

// Zone appends one collected zone and flushes it, so a kill after it returns keeps it. A
// zone already in the file is skipped.
func (sw *StreamWriter) Zone(z *ZoneInventory) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.written[z.Zone.ID] {
		return
	}
	sw.written[z.Zone.ID] = true
	sw.line(streamLine{Zone: z})
}

// Finish writes what the stream lacks of snap: the zones never handed to Zone (an
// interrupted run's zones that were not started, with their error), every account, and
// the end line. It returns the first write error.
func (sw *StreamWriter) Finish(snap *Snapshot) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	for i := range snap.Zones {
		if z := &snap.Zones[i]; !sw.written[z.Zone.ID] {
			sw.written[z.Zone.ID] = true
			sw.line(streamLine{Zone: z})
		}
	}
	for i := range snap.Accounts {
		sw.line(streamLine{Account: &snap.Accounts[i]})
	}
	if drop := sw.dropped(snap); drop != nil {
		sw.line(streamLine{Drop: drop})
	}
	sw.line(streamLine{End: &streamEnd{Incomplete: snap.Incomplete, Accounts: len(snap.Accounts), Zones: len(snap.Zones)}})
	return sw.err
}

// dropped lists the zones and accounts of the earlier lines that snap lacks, or nil.
func (sw *StreamWriter) dropped(snap *Snapshot) *streamDrop {
	if sw.earlier == nil {
		return nil
	}
	zones, accounts := map[string]bool{}, map[string]bool{}
	for _, z := range snap.Zones {
		zones[z.Zone.ID] = true
	}
	for _, a := range snap.Accounts {
		accounts[a.Account.ID] = true
	}
	var d streamDrop
	for _, z := range sw.earlier.Zones {
		if !zones[z.Zone.ID] {
			d.Zones = append(d.Zones, z.Zone.ID)
		}
	}
	for _, a := range sw.earlier.Accounts {
		if !accounts[a.Account.ID] {
			d.Accounts = append(d.Accounts, a.Account.ID)
		}
	}
	if d.Zones == nil && d.Accounts == nil {
		return nil
	}
	return &d
}

// Err returns the first write error.
func (sw *StreamWriter) Err() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.err
}

// line writes v as one line and flushes it; called with mu held.
func (sw *StreamWriter) line(v any) {
	if sw.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		data = append(data, '\n')
		_, err = sw.w.Write(data)
	}
	if err == nil {
		// Flushed to the kernel per line: a killed process loses nothing written. No fsync:
		// a power cut may cost the last zones, which a resume reads again.
		err = sw.w.Flush()
	}
	if err != nil {
		sw.err = fmt.Errorf("snapshot: %w", err)
	}
}

// Stream is a snapshot file as read back: the snapshot it holds and what a resumed or
// incremental run needs to know about it.
type Stream struct {
	// Header is the stream's first line; zero for a snapshot of the single-document format
	// (no time of collection).
	Header StreamHeader
	// Snapshot holds every account and zone read, sorted. Incomplete is set unless the
	// stream ended normally with every part read.
	Snapshot *Snapshot
	// Complete holds the ids of the zones read without any error: a resumed run keeps them.
	Complete map[string]bool
	// Ended is set when the last line is an end line: the run that wrote it ended (finished
	// or interrupted) rather than being killed.
	Ended bool
	// Truncated is set when the last line was cut short (a kill while it was written).
	Truncated bool
	// Valid is the length of the prefix of whole lines; a resumed run appends there.
	Valid int64
}

// IsStream reports whether the file starts as a stream snapshot does.
func IsStream(prefix []byte) bool { return bytes.HasPrefix(prefix, streamMagic) }

// ReadStream reads a snapshot of either format: a stream (a cut-short last line is
// ignored) or the single JSON document Write produces.
func ReadStream(r io.Reader) (*Stream, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	prefix, _ := br.Peek(len(streamMagic)) // a short file is not a stream: the document path says why
	if bytes.HasPrefix(streamMagic, prefix) && len(prefix) < len(streamMagic) {
		return nil, ErrStreamHeaderCut // empty, or killed inside the header's first member
	}
	if !IsStream(prefix) {
		snap, err := readDocument(br)
		if err != nil {
			return nil, err
		}
		return &Stream{Snapshot: snap, Complete: completeZones(snap), Ended: true}, nil
	}
	return readLines(br)
}

func readLines(br *bufio.Reader) (*Stream, error) {
	st := &Stream{}
	accounts := map[string]AccountInventory{}
	zones := map[string]ZoneInventory{}
	var end *streamEnd
	for n := 1; ; n++ {
		data, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			st.Truncated = len(bytes.TrimSpace(data)) > 0
			break
		}
		if err != nil {
			return nil, fmt.Errorf("snapshot: line %d: %w", n, err)
		}
		st.Valid += int64(len(data))
		if n == 1 {
			if err := st.readHeader(data); err != nil {
				return nil, err
			}
			continue
		}
		var l streamLine
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("snapshot: line %d: %w", n, err)
		}
		end = l.End // an end line followed by more lines ends nothing
		switch {
		case l.Zone != nil:
			zones[l.Zone.Zone.ID] = *l.Zone
		case l.Account != nil:
			accounts[l.Account.Account.ID] = *l.Account
		case l.Drop != nil:
			for _, id := range l.Drop.Zones {
				delete(zones, id)
			}
			for _, id := range l.Drop.Accounts {
				delete(accounts, id)
			}
		}
	}
	if st.Valid == 0 {
		return nil, ErrStreamHeaderCut
	}
	snap := &Snapshot{SchemaVersion: SnapshotSchemaVersion, Source: st.Header.Source}
	for _, a := range accounts {
		snap.Accounts = append(snap.Accounts, a)
	}
	for _, z := range zones {
		snap.Zones = append(snap.Zones, z)
	}
	snap.Sort()
	st.Ended = end != nil && !st.Truncated
	st.Complete = completeZones(snap)
	snap.Incomplete = !st.Ended || end.Incomplete || len(st.Complete) < len(snap.Zones)
	st.Snapshot = snap
	return st, nil
}

func (st *Stream) readHeader(line []byte) error {
	if err := json.Unmarshal(line, &st.Header); err != nil {
		return fmt.Errorf("snapshot: header: %w", err)
	}
	if st.Header.SchemaVersion > StreamSchemaVersion {
		return fmt.Errorf("snapshot: stream schema_version %d is newer than this sunset understands (%d); upgrade sunset", st.Header.SchemaVersion, StreamSchemaVersion)
	}
	return nil
}

// completeZones returns the ids of the zones read without any error.
func completeZones(snap *Snapshot) map[string]bool {
	out := make(map[string]bool, len(snap.Zones))
	for i := range snap.Zones {
		if len(snap.Zones[i].Errors) == 0 {
			out[snap.Zones[i].Zone.ID] = true
		}
	}
	return out
}
