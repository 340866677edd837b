package apply

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// JournalFormat names the journal's header line.
const JournalFormat = "sunset-apply-journal"

// journalVersion is the version of the journal format this build writes.
const journalVersion = 1

// Events of a journal entry.
const (
	// EventBegin is written before a step's write is sent, with what it overwrites.
	EventBegin = "begin"
	// EventDone is written once the step's effect was read back; Already says it was found
	// done without sending anything (a resumed step whose answer was lost).
	EventDone = "done"
	// EventStopped is written when a scope stops at a step: stale, failed or unsafe.
	EventStopped = "stopped"
	// EventUndone is written by a rollback once a done step is undone.
	EventUndone = "undone"
)

// Entry is one line of a journal after the header.
type Entry struct {
	Event string `json:"event"`
	// Scope is "zone" or "account"; ID its id.
	Scope string `json:"scope"`
	ID    string `json:"id"`
	Step  string `json:"step,omitempty"`
	Kind  string `json:"kind,omitempty"`
	// Method and Path are the step's call.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Before holds, for a PUT or PATCH, the members the write overwrites as they were read
	// just before it: what a rollback writes back.
	Before json.RawMessage `json:"before,omitempty"`
	// Created are the ids the API assigned: ruleset_id, rule_id, id.
	Created map[string]string `json:"created,omitempty"`
	Already bool              `json:"already,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Time    string            `json:"time,omitempty"`
}

// key names a step across scopes.
func (e Entry) key() string { return e.Scope + "/" + e.ID + "/" + e.Step }

// header is the journal's first line: the plan and the snapshot it was built from, so that
// --resume and --rollback need nothing else.
type header struct {
	Format   string              `json:"format"`
	Version  int                 `json:"version"`
	Plan     *migrate.Plan       `json:"plan"`
	Snapshot *inventory.Snapshot `json:"snapshot"`
}

// Journal is an append-only record of an apply, one JSON line per event, synced to disk
// after each so that a killed process loses at most the step in flight.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	now  func() time.Time
	path string
}

// CreateJournal starts a new journal at path (refused when something is there: a journal
// is never overwritten) with the plan and the part of snap the plan touches.
func CreateJournal(path string, p *migrate.Plan, snap *inventory.Snapshot) (*Journal, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("journal %s exists: resume it with --resume, or choose another --journal", path)
	}
	f, err := safefile.Create(path)
	if err != nil {
		return nil, err
	}
	j := &Journal{f: f, now: time.Now, path: path}
	line, err := json.Marshal(header{Format: JournalFormat, Version: journalVersion, Plan: p, Snapshot: planned(p, snap)})
	if err == nil {
		err = j.writeLine(line)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return j, nil
}

// AppendJournal opens an existing journal to add entries after its last whole line.
func AppendJournal(path string) (*Journal, error) {
	if err := safefile.NotLink(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err == nil {
		// A line cut short by a kill is dropped, so the next entry starts a line.
		_, err = f.Seek(int64(bytes.LastIndexByte(data, '\n')+1), io.SeekStart)
		if err == nil {
			err = f.Truncate(int64(bytes.LastIndexByte(data, '\n') + 1))
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return &Journal{f: f, now: time.Now, path: path}, nil
}

// Path is where the journal is written.
func (j *Journal) Path() string { return j.path }

// Record appends one entry and syncs it to disk.
func (j *Journal) Record(e Entry) error {
	if j == nil {
		return nil
	}
	e.Time = j.now().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeLine(line)
}

func (j *Journal) writeLine(line []byte) error {
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return err
	}
	return j.f.Sync()
}

// Close closes the journal file.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.f.Close()
}

// Loaded is a journal read back: the plan, its snapshot and the entries in order.
type Loaded struct {
	Plan     *migrate.Plan
	Snapshot *inventory.Snapshot
	Entries  []Entry
}

// maxJournal bounds a journal read (the plan and snapshot of a large account fit).
const maxJournal = 1 << 30

// LoadJournal reads a journal; a last line cut short by a kill is ignored.
func LoadJournal(path string) (*Loaded, error) {
	f, err := safefile.Open(path, maxJournal)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	r := bufio.NewReaderSize(f, 1<<20)
	var l Loaded
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a last line without its newline was cut short
		}
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		if n == 1 {
			var h header
			if err := json.Unmarshal(line, &h); err != nil || h.Format != JournalFormat || h.Plan == nil {
				return nil, fmt.Errorf("journal %s: not a sunset apply journal", path)
			}
			if h.Version > journalVersion {
				return nil, fmt.Errorf("journal %s: version %d is newer than this sunset reads (%d)", path, h.Version, journalVersion)
			}
			l.Plan, l.Snapshot = h.Plan, h.Snapshot
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("journal %s: line %d: %w", path, n, err)
		}
		l.Entries = append(l.Entries, e)
	}
	if l.Plan == nil {
		return nil, fmt.Errorf("journal %s: empty", path)
	}
	if l.Snapshot == nil {
		l.Snapshot = &inventory.Snapshot{}
	}
	return &l, nil
}

// Done returns the steps done and not undone since, by scope/id/step.
func (l *Loaded) Done() map[string]Entry {
	out := map[string]Entry{}
	for _, e := range l.Entries {
		switch e.Event {
		case EventDone:
			out[e.key()] = e
		case EventUndone:
			delete(out, e.key())
		}
	}
	return out
}

// planned is the part of snap the plan has steps for: the stale checks need no more.
func planned(p *migrate.Plan, snap *inventory.Snapshot) *inventory.Snapshot {
	if snap == nil {
		return nil
	}
	zones, accounts := map[string]bool{}, map[string]bool{}
	for _, z := range p.Zones {
		zones[z.ZoneID] = true
	}
	for _, a := range p.Accounts {
		accounts[a.AccountID] = true
	}
	out := &inventory.Snapshot{SchemaVersion: snap.SchemaVersion, Source: snap.Source}
	for _, z := range snap.Zones {
		if zones[z.Zone.ID] {
			out.Zones = append(out.Zones, z)
		}
	}
	for _, a := range snap.Accounts {
		if accounts[a.Account.ID] {
			out.Accounts = append(out.Accounts, a)
		}
	}
	return out
}
