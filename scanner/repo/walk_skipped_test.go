package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestWalkListsWhatItDoesNotRead: the walk reads regular files only; every other file it
// meets (a symbolic link, a FIFO, a binary) is in Result.Skipped with why, unless an ignore
// file or --exclude leaves it out of the check anyway.
func TestWalkListsWhatItDoesNotRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.sh":    "echo hello\n",
		"logo.png":   "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\x01\x02\x03", 60),
		".gitignore": "ignored-link\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, link := range []string{"linked.sh", "ignored-link", "excluded-link", "dangling"} {
		target := "main.sh"
		if link == "dangling" {
			target = "nowhere"
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "queue"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), Options{Paths: []string{dir}, AsOf: asOf, Exclude: []string{"excluded-link"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Skipped {
		got = append(got, fmt.Sprintf("%s (%s)", strings.TrimPrefix(s.Path, filepath.ToSlash(dir)+"/"), s.Why))
	}
	want := []string{"dangling (symbolic link)", "linked.sh (symbolic link)", "logo.png (binary)", "queue (FIFO)"}
	if !slices.Equal(got, want) || res.Incomplete() || res.FilesScanned != 2 {
		t.Errorf("skipped %q, want %q; errors %+v, scanned %d", got, want, res.Errors, res.FilesScanned)
	}
}

func TestChildPathIsFilepathJoin(t *testing.T) {
	sep := string(filepath.Separator)
	for _, dir := range []string{".", "a", filepath.Join("a", "b"), sep, sep + "tmp", ".." + sep + "x"} {
		for _, name := range []string{"f.tf", ".gitignore", "..x"} {
			if got, want := childPath(dir, name), filepath.Join(dir, name); got != want {
				t.Errorf("childPath(%q, %q) = %q, want %q", dir, name, got, want)
			}
		}
	}
}
