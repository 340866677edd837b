package apply

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Loaded is a journal read back: the plan, its snapshot, what binds them to an account,
// and the entries folded into what resuming and rolling back need (entries are not kept:
// a journal can be far larger than what it says of each step).
type Loaded struct {
	Plan     *migrate.Plan
	Snapshot *inventory.Snapshot
	// APIURL is the base URL of the API the journal's apply wrote to; Accounts the ids of
	// the accounts its plan writes to (see CheckBinding).
	APIURL   string
	Accounts []string
	// Entries is how many entries were read.
	Entries int64
	// planSHA256 is the header's digest of the plan (Holds).
	planSHA256 string

	done    map[string]Entry
	touched map[string]*touched
	// end is the size of the whole lines, seq the last entry's number and last the sha256
	// of the last whole line: where and how AppendJournal goes on.
	end  int64
	seq  int64
	last [sha256.Size]byte
}

// maxJournal bounds a journal read.
const maxJournal = 1 << 30

// LoadJournal reads a journal as a stream and checks it is the one sunset wrote: the header's
// plan and snapshot match their digests, and every entry follows the line before it (its
// seq and its prev digest), so edited, reordered, removed or repeated lines are refused
// with the line's number. A last line cut short by a kill is ignored. It does not take the
// journal's lock: AppendJournal does, for a run that writes.
func LoadJournal(path string) (*Loaded, error) {
	f, err := safefile.Open(path, maxJournal)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	l, err := loadFrom(path, f)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return l, nil
}

// Done returns the steps done and not undone since, by scope/id/step (without what they
// overwrote: Rollback has that). The map is the Loaded's own: do not change it.
func (l *Loaded) Done() map[string]Entry { return l.done }

// Holds reports whether p is the plan the journal's apply carries out: the plan a new
// journal of p would hold (CreateJournal), by its digest.
func (l *Loaded) Holds(p *migrate.Plan) bool {
	data, err := json.Marshal(p)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == l.planSHA256
}

// errEdited ends the messages about a journal that is not as sunset wrote it.
const errEdited = "sunset resumes and rolls back a journal only as it wrote it: restore it, or check the account and start a new apply from a fresh scan"

// loadFrom reads a journal from r (path only names it in errors).
func loadFrom(path string, r io.Reader) (*Loaded, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	l := &Loaded{done: map[string]Entry{}, touched: map[string]*touched{}}
	if err := l.readHeader(path, br); err != nil {
		return nil, err
	}
	var scratch []byte
	var want [2 * sha256.Size]byte
	for n := int64(2); ; n++ {
		line, err := readLine(br, &scratch)
		if errors.Is(err, io.EOF) {
			return l, nil // a last line without its newline was cut short
		}
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("line %d is not a journal entry (%w): %s", n, err, errEdited)
		}
		if e.Seq != l.seq+1 {
			return nil, fmt.Errorf("line %d holds entry %d where entry %d belongs: lines were reordered, removed or repeated; %s", n, e.Seq, l.seq+1, errEdited)
		}
		hex.Encode(want[:], l.last[:])
		if e.Prev != string(want[:]) {
			return nil, fmt.Errorf("line %d does not follow line %d (its prev is not that line's sha256): a line was edited, or two runs wrote the journal at once; %s", n, n-1, errEdited)
		}
		l.fold(e)
		l.seq, l.last, l.end = e.Seq, sha256.Sum256(line), l.end+int64(len(line))
		l.Entries++
	}
}

// readLine returns the next whole line, newline included, in br's buffer or (when longer)
// in scratch; io.EOF at the end or before a line cut short.
func readLine(br *bufio.Reader, scratch *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil, io.EOF
		}
		return line, err
	}
	buf := append((*scratch)[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		buf = append(buf, line...)
	}
	*scratch = buf
	return buf, err
}

// fold adds one entry to what the journal says of its step, or of each step a call that
// carried out several covers.
func (l *Loaded) fold(e Entry) {
	if e.Event == EventBegin && len(e.Steps) > 0 {
		for _, st := range e.Steps {
			l.fold(Entry{Event: EventBegin, Scope: e.Scope, ID: e.ID, Step: st, Before: e.Befores[st]})
		}
		return
	}
	k := e.key()
	t := l.touched[k]
	if t == nil {
		t = &touched{}
		l.touched[k] = t
	}
	switch e.Event {
	case EventBegin:
		t.begun = true
		if len(e.Before) > 0 {
			t.before = e.Before
		}
	case EventDone:
		t.done, t.created = true, e.Created
		l.done[k] = Entry{Seq: e.Seq, Event: e.Event, Scope: e.Scope, ID: e.ID, Step: e.Step, Kind: e.Kind, Created: e.Created, Already: e.Already}
	case EventUndone:
		*t = touched{}
		delete(l.done, k)
	}
}

// headerIn is the header as read: the plan and snapshot are decoded and hashed from the
// decoder's own buffer, with no copy of their bytes.
type headerIn struct {
	Format         string                     `json:"format"`
	Version        int                        `json:"version"`
	PlanSHA256     string                     `json:"plan_sha256"`
	SnapshotSHA256 string                     `json:"snapshot_sha256"`
	APIURL         string                     `json:"api_url"`
	Accounts       []string                   `json:"accounts"`
	Plan           hashed[migrate.Plan]       `json:"plan"`
	Snapshot       hashed[inventory.Snapshot] `json:"snapshot"`
}

// hashed decodes a T and keeps the sha256 of its bytes as written.
type hashed[T any] struct {
	v   *T
	sum [sha256.Size]byte
	set bool
}

// UnmarshalJSON hashes data (the value's bytes as written) and decodes it.
func (h *hashed[T]) UnmarshalJSON(data []byte) error {
	h.sum, h.set = sha256.Sum256(data), true
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	h.v = new(T)
	return json.Unmarshal(data, h.v)
}

// matches reports whether the value's bytes have the hex digest want.
func (h *hashed[T]) matches(want string) bool {
	var got [2 * sha256.Size]byte
	hex.Encode(got[:], h.sum[:])
	return h.set && want == string(got[:])
}

// readHeader decodes the first line from br while hashing it, checks it, and sets l's plan,
// snapshot and binding, and the digest the first entry's prev must hold.
func (l *Loaded) readHeader(path string, br *bufio.Reader) error {
	digest := sha256.New()
	lr := &lineReader{br: br}
	tee := io.TeeReader(lr, digest)
	dec := json.NewDecoder(tee)
	var h headerIn
	err := dec.Decode(&h)
	if err == nil {
		// The rest of the line: what the decoder holds was hashed already, not what is left.
		var rest []byte
		if rest, err = io.ReadAll(io.MultiReader(dec.Buffered(), tee)); err == nil && len(bytes.TrimSpace(rest)) > 0 {
			err = errors.New("more after the header")
		}
		if err == nil && !lr.nl {
			err = errors.New("no newline after it")
		}
	}
	switch {
	case err != nil && !lr.nl:
		if lr.n == 0 {
			return errors.New("empty: nothing to resume or roll back")
		}
		return fmt.Errorf("its header line is cut short or not one (%w): nothing was applied from it; start a new apply", err)
	case err != nil || h.Format != JournalFormat || h.Plan.v == nil:
		return errors.New("not a sunset apply journal")
	case h.Version < journalVersion:
		return fmt.Errorf("written by an older sunset (journal version %d; this sunset reads version %d): finish it with the sunset that wrote it, or start a new apply with a new --journal", h.Version, journalVersion)
	case h.Version > journalVersion:
		return fmt.Errorf("version %d is newer than this sunset reads (%d): use the sunset that wrote it", h.Version, journalVersion)
	case !h.Plan.matches(h.PlanSHA256):
		return errors.New("the plan in its header does not match its plan_sha256: the header was edited; " + errEdited)
	case !h.Snapshot.matches(h.SnapshotSHA256):
		return errors.New("the snapshot in its header does not match its snapshot_sha256: the header was edited; " + errEdited)
	}
	l.Plan, l.Snapshot, l.APIURL, l.Accounts, l.planSHA256 = h.Plan.v, h.Snapshot.v, h.APIURL, h.Accounts, h.PlanSHA256
	if l.Snapshot == nil {
		l.Snapshot = &inventory.Snapshot{}
	}
	if want := planAccounts(l.Plan, l.Snapshot); !slices.Equal(want, l.Accounts) {
		return fmt.Errorf("its header names accounts %v where its plan writes to %v: the header was edited; %s", l.Accounts, want, errEdited)
	}
	digest.Sum(l.last[:0])
	l.end = lr.n
	return nil
}

// lineReader reads br up to and including the first newline, then reports io.EOF: a
// decoder reading through it never takes bytes of the next line.
type lineReader struct {
	br *bufio.Reader
	n  int64 // bytes read
	nl bool  // the newline was read
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.nl {
		return 0, io.EOF
	}
	if r.br.Buffered() == 0 {
		if _, err := r.br.Peek(1); err != nil {
			return 0, err
		}
	}
	buf, _ := r.br.Peek(min(r.br.Buffered(), len(p)))
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf, r.nl = buf[:i+1], true
	}
	n := copy(p, buf)
	_, _ = r.br.Discard(n)
	r.n += int64(n)
	return n, nil
}
