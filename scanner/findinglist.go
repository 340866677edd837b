package scanner

import (
	"bufio"
	"encoding/json"
	"errors"
	"iter"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// FindingList is a scan's findings in order: a slice, or, for a scan with many findings, a
// temporary file of records that memory indexes with 8 bytes a finding (see
// Live.ResultList). Reading keeps a window of the file, so reading in order, or nearly (a
// zone's findings after another's), costs one read per window.
//
// A FindingList is not safe for concurrent use, reading included: reports read it one
// after another. A nil *FindingList is empty.
type FindingList struct {
	mem []Finding

	// The file form: record i is file[offs[i]:offs[i+1]].
	f     *safefile.Temp
	offs  []int64
	win   []byte // file[winAt:winAt+len(win)]
	winAt int64
	dec   recordDecoder
	err   error
}

// listWindow is how much of a spilled list one read brings in.
const listWindow = 64 << 10

// NewFindingList is a list of fs, which it shares: the caller must not change them after.
func NewFindingList(fs []Finding) *FindingList {
	if fs == nil {
		fs = []Finding{}
	}
	return &FindingList{mem: fs}
}

// Len is the number of findings.
func (l *FindingList) Len() int {
	switch {
	case l == nil:
		return 0
	case l.f != nil:
		return len(l.offs) - 1
	}
	return len(l.mem)
}

// Spilled reports whether the list is in a temporary file.
func (l *FindingList) Spilled() bool { return l != nil && l.f != nil }

// At is finding i (0 <= i < Len()), a copy the caller may keep. On the file form a read
// error gives the zero Finding and is kept for Err.
func (l *FindingList) At(i int) Finding {
	if l.f == nil {
		return l.mem[i]
	}
	start, end := l.offs[i], l.offs[i+1]
	if start < l.winAt || end > l.winAt+int64(len(l.win)) {
		if err := l.fill(start, end); err != nil {
			l.keep(err)
			return Finding{}
		}
	}
	var f Finding
	if _, err := l.dec.decode(l.win[start-l.winAt:end-l.winAt], &f); err != nil {
		l.keep(err)
		return Finding{}
	}
	return f
}

// fill reads the window starting at start, at least up to end.
func (l *FindingList) fill(start, end int64) error {
	size := max(int64(listWindow), end-start)
	if last := l.offs[len(l.offs)-1]; start+size > last {
		size = last - start
	}
	if int64(cap(l.win)) < size {
		l.win = make([]byte, size)
	}
	l.win = l.win[:size]
	n, err := l.f.ReadAt(l.win, start)
	if int64(n) >= end-start {
		err = nil // io.EOF at the end of the file, with the record read
	}
	l.win, l.winAt = l.win[:n], start
	return err
}

func (l *FindingList) keep(err error) {
	if l.err == nil {
		l.err = err
	}
}

// All yields every finding in order with its index.
func (l *FindingList) All() iter.Seq2[int, Finding] {
	return func(yield func(int, Finding) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice returns the findings as a slice: the list's own slice (not to be changed), or a
// copy of the file form read whole.
func (l *FindingList) Slice() []Finding {
	if l == nil {
		return []Finding{}
	}
	if l.f == nil {
		return l.mem
	}
	out := make([]Finding, 0, l.Len())
	for _, f := range l.All() {
		out = append(out, f)
	}
	return out
}

// Err is the first error reading the temporary file met; nil for a slice.
func (l *FindingList) Err() error {
	if l == nil {
		return nil
	}
	return l.err
}

// Close closes the temporary file, which frees it; the list is then empty. Closing a slice or a nil
// list does nothing.
func (l *FindingList) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.offs, l.win, l.mem = nil, nil, nil, []Finding{}
	return err
}

// MarshalJSON writes the findings as a JSON array, as a []Finding marshals.
func (l *FindingList) MarshalJSON() ([]byte, error) {
	if l.f == nil {
		return json.Marshal(l.mem)
	}
	b := []byte{'['}
	for i, f := range l.All() {
		if i > 0 {
			b = append(b, ',')
		}
		fb, err := json.Marshal(&f)
		if err != nil {
			return nil, err
		}
		b = append(b, fb...)
	}
	return append(b, ']'), l.err
}

// UnmarshalJSON reads a JSON array of findings into a slice-backed list.
func (l *FindingList) UnmarshalJSON(b []byte) error {
	var fs []Finding
	if err := json.Unmarshal(b, &fs); err != nil {
		return err
	}
	*l = *NewFindingList(fs)
	return nil
}

// listWriter writes a spilled list's file: records appended in order, offsets kept.
type listWriter struct {
	f    *safefile.Temp
	w    *bufio.Writer
	offs []int64
	buf  []byte
}

func newListWriter(dir string) (*listWriter, error) {
	f, err := safefile.NewTemp(dir, "sunset-findings-*.spill")
	if err != nil {
		return nil, err
	}
	return &listWriter{f: f, w: bufio.NewWriterSize(f, listWindow), offs: []int64{0}}, nil
}

func (w *listWriter) add(f *Finding) error {
	w.buf = appendFinding(w.buf[:0], f)
	if _, err := w.w.Write(w.buf); err != nil {
		return err
	}
	w.offs = append(w.offs, w.offs[len(w.offs)-1]+int64(len(w.buf)))
	return nil
}

// list flushes the file and hands it over as a list, which then owns it.
func (w *listWriter) list() (*FindingList, error) {
	if err := w.w.Flush(); err != nil {
		return nil, errors.Join(err, w.abort())
	}
	return &FindingList{f: w.f, offs: w.offs}, nil
}

// abort closes the file, which frees it.
func (w *listWriter) abort() error {
	return w.f.Close()
}

// WriteFindingList writes fs, in their order, to a list in a new temporary file in dir (""
// is the system's temporary directory); Close frees it.
func WriteFindingList(dir string, fs []Finding) (*FindingList, error) {
	w, err := newListWriter(dir)
	if err != nil {
		return nil, err
	}
	for i := range fs {
		if err := w.add(&fs[i]); err != nil {
			return nil, errors.Join(err, w.abort())
		}
	}
	return w.list()
}
