//go:build unix

package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(link, 10); err != nil || string(data) != "hello" {
		t.Fatalf("ReadFile through a link: %q, %v", data, err)
	}
	cases := map[string]struct {
		read func(string, int64) ([]byte, error)
		path string
		max  int64
		want string
	}{
		"directory":       {ReadFile, dir, 10, "a directory"},
		"too large":       {ReadFile, reg, 4, "over the 4-byte limit"},
		"link, no follow": {ReadFileNoFollow, link, 10, "symbolic link"},
	}
	{
		cases["device"] = struct {
			read func(string, int64) ([]byte, error)
			path string
			max  int64
			want string
		}{ReadFile, "/dev/zero", 10, "character device"}
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		cases["fifo"] = struct {
			read func(string, int64) ([]byte, error)
			path string
			max  int64
			want string
		}{ReadFile, fifo, 10, "FIFO"}
	}
	// ReadFileInto refuses the same things with the same words.
	into := func(noFollow bool) func(string, int64) ([]byte, error) {
		return func(p string, n int64) ([]byte, error) { return ReadFileInto(p, n, noFollow, nil) }
	}
	for _, name := range []string{"directory", "too large", "device", "fifo"} {
		c := cases[name]
		c.read = into(false)
		cases[name+" (into)"] = c
	}
	c := cases["link, no follow"]
	c.read = into(true)
	cases["link, no follow (into)"] = c
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := c.read(c.path, c.max); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
					t.Fatalf("error %v, want a refusal naming %s and saying %q", err, c.path, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("read blocked")
			}
		})
	}
}

func TestCreateRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sunset.sarif")
	if err := os.Symlink(target, out); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out, []byte("new")); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), out) {
		t.Fatalf("WriteFile through a link: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Fatalf("link target written: %q", data)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("a long old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(plain, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(plain); string(data) != "new" {
		t.Fatalf("regular file not truncated: %q", data)
	}
	linkedDir := filepath.Join(dir, "plan")
	if err := os.Symlink(t.TempDir(), linkedDir); err != nil {
		t.Fatal(err)
	}
	if err := MkdirNoFollow(linkedDir); !errors.Is(err, ErrRefused) {
		t.Fatalf("MkdirNoFollow on a link: %v", err)
	}
	if err := MkdirNoFollow(filepath.Join(dir, "a", "b")); err != nil {
		t.Fatal(err)
	}
}

func TestOpenIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The file grows after the open: the reader stops at the bound with a refusal.
	if err := os.WriteFile(p, []byte("0123456789abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	if !errors.Is(err, ErrRefused) || len(data) != 10 {
		t.Fatalf("read %q, %v", data, err)
	}
	_ = f.Close()
	if data, err := ReadFile(p, 13); err != nil || len(data) != 13 {
		t.Fatalf("read %q, %v", data, err)
	}
}

func TestReadFileIntoReusesItsBuffer(t *testing.T) {
	dir := t.TempDir()
	small, big, empty := filepath.Join(dir, "s"), filepath.Join(dir, "b"), filepath.Join(dir, "e")
	for p, n := range map[string]int{small: 10, big: 5000, empty: 0} {
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 0, 100)
	data, err := ReadFileInto(small, 100, true, buf)
	if err != nil || string(data) != "xxxxxxxxxx" || &data[:1][0] != &buf[:1][0] {
		t.Fatalf("small file: %q %v (read into the buffer given: %v)", data, err, err == nil && &data[:1][0] == &buf[:1][0])
	}
	if data, err = ReadFileInto(big, 1<<20, false, buf); err != nil || len(data) != 5000 {
		t.Fatalf("larger than the buffer: %d %v", len(data), err)
	}
	if data, err = ReadFileInto(empty, 10, false, buf); err != nil || len(data) != 0 {
		t.Fatalf("empty: %q %v", data, err)
	}
	var tl *TooLargeError
	if _, err := ReadFileInto(big, 4999, false, nil); !errors.As(err, &tl) || tl.Size != 5000 || tl.Limit != 4999 {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadFileInto(filepath.Join(dir, "missing"), 10, false, nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

func TestReadFileIntoReadsWhatAZeroSizeHolds(t *testing.T) {
	// /proc files say they hold nothing and hold text: a size of 0 is read to the end.
	const p = "/proc/self/status"
	if _, err := os.Stat(p); err != nil {
		t.Skip("no /proc here")
	}
	data, err := ReadFileInto(p, 1<<20, true, nil)
	if err != nil || !strings.Contains(string(data), "Name:") {
		t.Fatalf("read %q, %v", data, err)
	}
}
