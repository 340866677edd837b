package safefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// TestTempHasNoNameInItsDirectory: a Temp, written and read back, never shows in its
// directory (Windows excepted while it is open), so no kill can leave it there; the
// create-then-unlink fallback neither.
func TestTempHasNoNameInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	f, err := NewTemp(dir, "sunset-test-*.spill")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hello, spill")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("an open Temp has a name: %v", left)
		}
	}
	got := make([]byte, 5)
	if _, err := f.ReadAt(got, 7); err != nil || string(got) != "spill" {
		t.Errorf("ReadAt: %q, %v", got, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(f); err != nil || string(all) != "hello, spill" {
		t.Errorf("Read: %q, %v", all, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("a closed Temp left %v", left)
	}
	if runtime.GOOS == "windows" {
		return // it cannot unlink an open file
	}
	g, err := createUnlinked(dir, "sunset-test-*.spill")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.Close() }()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("createUnlinked left a name: %v", left)
	}
}

// TestLimitTempFailsAsAFullFilesystem: past LimitTemp's limit a write puts what fits and
// fails with ENOSPC, as a TempError that names the directory and what was held.
func TestLimitTempFailsAsAFullFilesystem(t *testing.T) {
	defer LimitTemp(tempHeld.Load() + 100)()
	dir := t.TempDir()
	f, err := NewTemp(dir, "sunset-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Write(bytes.Repeat([]byte("a"), 60)); err != nil {
		t.Fatal(err)
	}
	n, err := f.Write(bytes.Repeat([]byte("b"), 60))
	te, full := TempFull(err)
	if n != 40 || !full || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write past the limit: %d bytes, %v; want 40 and ENOSPC", n, err)
	}
	if te.Dir != dir || te.Held != tempHeld.Load() {
		t.Errorf("TempError names %s holding %d; want %s holding %d", te.Dir, te.Held, dir, tempHeld.Load())
	}
	if _, plain := TempFull(&TempError{Dir: dir, Err: syscall.EIO}); plain {
		t.Error("EIO taken for a full filesystem")
	}
}
