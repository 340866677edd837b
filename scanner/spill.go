package scanner

import (
	"cmp"
	"encoding/hex"
	"errors"
	"slices"
)

// findingSpill holds the zone findings of a live scan past Options.SpillAfter: each run of
// one zone's findings is written as a block to a temporary file, and memory keeps a small
// entry per block and a count per fingerprint (16 bytes a finding; findingList merges the
// blocks and makes fingerprints unique at the end, as dedupeFingerprints would).
type findingSpill struct {
	w      *listWriter
	blocks []spillBlock
	fps    map[[16]byte]int32
	n      int // findings written
}

// spillBlock is a run of findings of one zone in the blocks file, in the order the scan
// found them: records first to first+count-1, which are also their places among every
// finding the scan found (the account findings come after the file's).
type spillBlock struct {
	zoneName, zoneID string
	first, count     int
}

func newFindingSpill(dir string) (*findingSpill, error) {
	w, err := newListWriter(dir)
	if err != nil {
		return nil, err
	}
	return &findingSpill{w: w, fps: map[[16]byte]int32{}}, nil
}

// FingerprintKey is a fingerprint as 16 bytes, for maps of many: one that is not 32 hex
// digits (never made by Fingerprint) is hashed to be.
func FingerprintKey(fp string) [16]byte {
	var k [16]byte
	if len(fp) != 2*len(k) {
		fp = Fingerprint(fp)
	}
	if _, err := hex.Decode(k[:], []byte(fp)); err != nil {
		_, _ = hex.Decode(k[:], []byte(Fingerprint(fp))) // 32 hex digits: cannot fail
	}
	return k
}

// count adds the findings' fingerprints to the counts.
func (sp *findingSpill) count(fs []Finding) {
	for i := range fs {
		sp.fps[FingerprintKey(fs[i].Fingerprint)]++
	}
}

// write appends zone findings to the file, a block per run of one zone.
func (sp *findingSpill) write(fs []Finding) error {
	sp.count(fs)
	for i := range fs {
		f := &fs[i]
		last := len(sp.blocks) - 1
		if last < 0 || sp.blocks[last].zoneName != f.ZoneName || sp.blocks[last].zoneID != f.ZoneID {
			sp.blocks = append(sp.blocks, spillBlock{zoneName: f.ZoneName, zoneID: f.ZoneID, first: sp.n})
			last++
		}
		if err := sp.w.add(f); err != nil {
			return err
		}
		sp.blocks[last].count++
		sp.n++
	}
	return nil
}

// list merges the blocks and the account findings (found last, without a zone) into a
// sorted list with unique fingerprints, in a second temporary file; the blocks file is
// freed.
func (sp *findingSpill) list(dir string, accounts []Finding) (*FindingList, error) {
	sp.count(accounts)
	blocks, err := sp.w.list()
	if err != nil {
		return nil, err
	}
	defer func() { _ = blocks.Close() }() // read only; freeing it is not the result
	// Account findings come after every zone finding, as in ScanSnapshot.
	sp.blocks = append(sp.blocks, spillBlock{first: sp.n, count: len(accounts)})
	first, err := sp.firstColliding(blocks, accounts)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(sp.blocks, func(a, b spillBlock) int {
		return cmp.Or(cmp.Compare(a.zoneName, b.zoneName), cmp.Compare(a.zoneID, b.zoneID))
	})
	out, err := newListWriter(dir)
	if err != nil {
		return nil, err
	}
	if err := sp.merge(blocks, accounts, first, out); err != nil {
		return nil, errors.Join(err, out.abort())
	}
	return out.list()
}

// finding is the scan's finding seq: from the blocks file, or an account finding.
func (sp *findingSpill) finding(blocks *FindingList, accounts []Finding, seq int) Finding {
	if seq >= sp.n {
		return accounts[seq-sp.n]
	}
	return blocks.At(seq)
}

// renamed is f's fingerprint once unique: a colliding one also covers the resource name
// and message (see dedupeFingerprints).
func (sp *findingSpill) renamed(f *Finding) (string, bool) {
	if sp.fps[FingerprintKey(f.Fingerprint)] > 1 {
		return Fingerprint(f.Fingerprint, f.Resource.Name, f.Message), true
	}
	return f.Fingerprint, false
}

// firstColliding maps the new fingerprint of each colliding finding to the first finding
// (in the scan's order) that has it: the one dedupeFingerprints keeps. Without collisions
// (the common case) it reads nothing.
func (sp *findingSpill) firstColliding(blocks *FindingList, accounts []Finding) (map[string]int, error) {
	first := map[string]int{}
	if !sp.collides() {
		return first, nil
	}
	for seq := range sp.n + len(accounts) {
		f := sp.finding(blocks, accounts, seq)
		if fp, ok := sp.renamed(&f); ok {
			if _, seen := first[fp]; !seen {
				first[fp] = seq
			}
		}
	}
	return first, blocks.Err()
}

func (sp *findingSpill) collides() bool {
	for _, n := range sp.fps {
		if n > 1 {
			return true
		}
	}
	return false
}

// merge writes the findings to out zone by zone: the blocks of one zone read together,
// made unique and sorted.
func (sp *findingSpill) merge(blocks *FindingList, accounts []Finding, first map[string]int, out *listWriter) error {
	var zone []Finding
	for i := 0; i < len(sp.blocks); {
		j := i + 1
		for j < len(sp.blocks) && sp.blocks[j].zoneName == sp.blocks[i].zoneName && sp.blocks[j].zoneID == sp.blocks[i].zoneID {
			j++
		}
		zone = zone[:0]
		for _, b := range sp.blocks[i:j] {
			for seq := b.first; seq < b.first+b.count; seq++ {
				f := sp.finding(blocks, accounts, seq)
				fp, renamed := sp.renamed(&f)
				if renamed && first[fp] != seq {
					continue // a copy of a finding kept where it first came
				}
				f.Fingerprint = fp
				zone = append(zone, f)
			}
		}
		if err := blocks.Err(); err != nil {
			return err
		}
		SortFindings(zone)
		for k := range zone {
			if err := out.add(&zone[k]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// abort frees the blocks file of a scan that ends without a result.
func (sp *findingSpill) abort() error {
	if sp == nil {
		return nil
	}
	return sp.w.abort()
}
