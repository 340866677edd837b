package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// JournalFormat names the journal's header line.
const JournalFormat = "sunset-apply-journal"

// journalVersion is the version of the journal format this build writes and reads. Version
// 2 binds the header to its plan and snapshot (digests), its API and accounts, and chains
// every line to the one before it.
const journalVersion = 2

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
	// Seq numbers the entries 1, 2, 3... (the header is line 1, entry n line n+1), and Prev
	// is the hex sha256 of the line before as written, newline included: an edited,
	// reordered, lost or repeated line breaks the chain. Record sets both.
	Seq   int64  `json:"seq"`
	Prev  string `json:"prev"`
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
	// Steps, IDs and Befores are set on the begin entry of a call that carries out several
	// steps at once (a bulk call): the steps it covers,
	// the ids of their objects, and what each step's write overwrites, by step.
	Steps   []string                   `json:"steps,omitempty"`
	IDs     []string                   `json:"ids,omitempty"`
	Befores map[string]json.RawMessage `json:"befores,omitempty"`
	// Created are the ids the API assigned: ruleset_id, rule_id, id.
	Created map[string]string `json:"created,omitempty"`
	Already bool              `json:"already,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Time    string            `json:"time,omitempty"`
}

// key names a step across scopes.
func (e Entry) key() string { return e.Scope + "/" + e.ID + "/" + e.Step }

// header is the journal's first line: the plan and the snapshot it was built from, so that
// --resume and --rollback need nothing else, with what binds the journal to them and to the
// account it writes to.
type header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// PlanSHA256 and SnapshotSHA256 are the hex sha256 of Plan's and Snapshot's bytes as
	// written here.
	PlanSHA256     string `json:"plan_sha256"`
	SnapshotSHA256 string `json:"snapshot_sha256"`
	// APIURL is the base URL of the API the apply wrote to (it never holds a secret).
	APIURL string `json:"api_url"`
	// Accounts are the ids of the accounts the plan writes to, sorted.
	Accounts []string        `json:"accounts"`
	Plan     json.RawMessage `json:"plan"`
	Snapshot json.RawMessage `json:"snapshot"`
}

// Journal is an append-only record of an apply, one JSON line per event, synced to disk
// after each so that a killed process loses at most the step in flight. It holds the
// journal's lock (LockPath) until Close: one run at a time writes a journal.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	lock *journalLock
	now  func() time.Time
	path string
	// seq is the last entry's number, last the sha256 of the last line: the next entry's.
	seq  int64
	last [sha256.Size]byte
	// err is a failed write: the line may be in part on disk, so nothing more is written.
	err error
}

// CreateJournal starts a new journal at path (refused when something is there: a journal
// is never overwritten) with the plan, the part of snap the plan touches, and apiURL, the
// base URL of the API the apply writes to. It takes the journal's lock.
func CreateJournal(path string, p *migrate.Plan, snap *inventory.Snapshot, apiURL string) (*Journal, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("journal %s exists: resume it with --resume, or choose another --journal", path)
	}
	line, err := headerLine(p, planned(p, snap), apiURL)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	lock, err := lockJournal(path)
	if err != nil {
		return nil, err
	}
	// O_EXCL: a file that appeared since the Lstat is not overwritten either.
	f, err := safefile.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		_ = lock.release()
		return nil, fmt.Errorf("journal %s: %w (resume an existing journal with --resume, or choose another --journal)", path, err)
	}
	j := &Journal{f: f, lock: lock, now: time.Now, path: path}
	if err := j.writeLine(line); err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return j, nil
}

// headerLine is the header of a new journal, without its newline.
func headerLine(p *migrate.Plan, snap *inventory.Snapshot, apiURL string) ([]byte, error) {
	planJSON, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	snapJSON, err := json.Marshal(snap)
	if err != nil {
		return nil, err
	}
	ps, ss := sha256.Sum256(planJSON), sha256.Sum256(snapJSON)
	// Marshal output is compact: a RawMessage is written as it is, so the digests hold.
	return json.Marshal(header{
		Format: JournalFormat, Version: journalVersion,
		PlanSHA256: hex.EncodeToString(ps[:]), SnapshotSHA256: hex.EncodeToString(ss[:]),
		APIURL: apiURL, Accounts: planAccounts(p, snap), Plan: planJSON, Snapshot: snapJSON,
	})
}

// AppendJournal takes the lock of the journal at path, reads it (see LoadJournal: what was
// read is what is appended to, as no other run can write meanwhile) and opens it to add
// entries after its last whole line; a last line cut short by a kill is cut off.
func AppendJournal(path string) (*Journal, *Loaded, error) {
	if _, err := os.Lstat(path); err != nil {
		return nil, nil, err // no lock file beside a journal that is not there
	}
	lock, err := lockJournal(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := safefile.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		_ = lock.release()
		return nil, nil, err
	}
	j := &Journal{f: f, lock: lock, now: time.Now, path: path}
	var l *Loaded
	info, err := f.Stat()
	if err == nil && info.Size() > maxJournal {
		err = fmt.Errorf("%d bytes is over the %d-byte limit of a journal; start a new apply from a fresh scan", info.Size(), maxJournal)
	}
	if err == nil {
		// Read through the file that is appended to; the lock keeps other runs from writing.
		l, err = loadFrom(path, f)
	}
	if err == nil {
		// O_APPEND writes go to the end, which is now the end of the last whole line.
		err = f.Truncate(l.end)
	}
	if err != nil {
		_ = j.Close()
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j.seq, j.last = l.seq, l.last
	return j, l, nil
}

// Path is where the journal is written.
func (j *Journal) Path() string { return j.path }

// Record appends one entry, numbered and chained to the line before, and syncs it to disk.
func (j *Journal) Record(e Entry) error {
	if j == nil {
		return nil
	}
	e.Time = j.now().UTC().Format(time.RFC3339Nano)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	e.Seq, e.Prev = j.seq+1, hex.EncodeToString(j.last[:])
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := j.writeLine(line); err != nil {
		j.err = fmt.Errorf("journal %s: %w", j.path, err)
		return j.err
	}
	j.seq++
	return nil
}

// writeLine appends line and its newline with one write (the file is O_APPEND, so the line
// lands whole at the end), syncs it, and remembers its digest for the next line's prev.
func (j *Journal) writeLine(line []byte) error {
	line = append(line, '\n')
	if _, err := j.f.Write(line); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.last = sha256.Sum256(line)
	return nil
}

// Close closes the journal file and releases its lock.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	err := j.f.Close()
	if lerr := j.lock.release(); err == nil {
		err = lerr
	}
	return err
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
