package repo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFingerprintsOfEarlierReleasesStillMatch checks the promise baselines rest on: the
// findings an earlier sunset reported keep their fingerprints when detection improves. The
// baseline beside the fixture tree was written by the binary of commit 6b8e4c6, before
// check learned to read program source (`sunset check --as-of 2025-07-01 --write-baseline
// golden/check/fingerprints-v1.baseline.json fingerprints`, run in testdata); every entry must still
// match a finding, so none of them resurfaces in a gate that uses it.
func TestFingerprintsOfEarlierReleasesStillMatch(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "testdata"))
	data, err := os.ReadFile(filepath.Join("golden", "check", "fingerprints-v1.baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), Options{Paths: []string{"fingerprints"}, AsOf: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	fs, stale := Policy{Baseline: base}.Apply(res.Findings)
	for _, e := range stale {
		t.Errorf("baselined finding no longer matches (its fingerprint changed): %s %s %s", e.RuleID, e.Path, e.Resource)
	}
	suppressed := 0
	for _, f := range fs {
		if f.Suppressed {
			suppressed++
		}
	}
	if suppressed != len(base.Entries) {
		t.Errorf("%d findings silenced by the baseline, want all %d of its entries", suppressed, len(base.Entries))
	}
}
