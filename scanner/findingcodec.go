package scanner

import (
	"encoding/binary"
	"errors"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The record a spilled finding is written as: its strings length-prefixed (uvarint), then
// the severity (varint), a flags byte and, when the finding has one, its location. JSON
// would do, but a report reads a spill some twenty times and JSON decodes ten times slower.

// Flags of a record.
const (
	recSuppressed = 1 << iota
	recLocation
)

// recStrings are the string fields of a record, in order; the decoder keeps the last value
// of each, so that a run of findings of one zone and rule shares its strings.
const recStrings = 16

var errBadRecord = errors.New("spilled finding: malformed record")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendFinding appends f's record to b.
func appendFinding(b []byte, f *Finding) []byte {
	for _, s := range [recStrings]string{
		string(f.RuleID), f.Title, f.Message, f.Source, f.AccountID, f.ZoneID, f.ZoneName,
		string(f.Resource.Kind), f.Resource.ID, f.Resource.Name, f.DeprecatedOn, f.EndOfLife,
		f.Replacement, f.DocURL, f.Fingerprint, f.SuppressedBy,
	} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, int64(f.Severity))
	var flags byte
	if f.Suppressed {
		flags |= recSuppressed
	}
	if f.Location != nil {
		flags |= recLocation
	}
	b = append(b, flags)
	if l := f.Location; l != nil {
		b = appendString(b, l.Path)
		for _, n := range []int{l.StartLine, l.StartColumn, l.EndLine, l.EndColumn} {
			b = binary.AppendVarint(b, int64(n))
		}
	}
	return b
}

// recordDecoder reads records; it is not safe for concurrent use.
type recordDecoder struct {
	last [recStrings]string
}

// reader is a position in a record being decoded; the first error sticks.
type reader struct {
	b   []byte
	err error
}

// skip moves past the n bytes a varint took; n <= 0 (binary's "no varint") is an error.
func (r *reader) skip(n int) bool {
	if n <= 0 {
		r.err, r.b = errBadRecord, nil
		return false
	}
	r.b = r.b[n:]
	return true
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if !r.skip(n) {
		return 0
	}
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if !r.skip(n) {
		return 0
	}
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = errBadRecord, nil
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// str is the next string, the last one of its slot again when equal (no allocation).
func (d *recordDecoder) str(r *reader, slot int) string {
	b := r.bytes()
	if string(b) == d.last[slot] {
		return d.last[slot]
	}
	d.last[slot] = string(b)
	return d.last[slot]
}

// decode reads the record at the start of b into f and returns the bytes after it.
func (d *recordDecoder) decode(b []byte, f *Finding) ([]byte, error) {
	r := reader{b: b}
	var s [recStrings]string
	for i := range s {
		s[i] = d.str(&r, i)
	}
	*f = Finding{
		RuleID: vocab.RuleID(s[0]), Title: s[1], Message: s[2], Source: s[3],
		AccountID: s[4], ZoneID: s[5], ZoneName: s[6],
		Resource:     Resource{Kind: vocab.Kind(s[7]), ID: s[8], Name: s[9]},
		DeprecatedOn: s[10], EndOfLife: s[11], Replacement: s[12], DocURL: s[13],
		Fingerprint: s[14], SuppressedBy: s[15],
	}
	f.Severity = Severity(r.varint())
	if r.err != nil || len(r.b) == 0 {
		return nil, errBadRecord
	}
	flags := r.b[0]
	r.b = r.b[1:]
	f.Suppressed = flags&recSuppressed != 0
	if flags&recLocation != 0 {
		l := &Location{Path: string(r.bytes())}
		for _, p := range []*int{&l.StartLine, &l.StartColumn, &l.EndLine, &l.EndColumn} {
			*p = int(r.varint())
		}
		f.Location = l
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.b, nil
}
