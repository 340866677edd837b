package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Diff is the result's changes as a unified diff (a/PATH, b/PATH), files in path order.
func (r *Result) Diff() (string, error) {
	var b strings.Builder
	for _, f := range r.Files {
		from := "a/" + f.Path
		if f.Old == nil {
			from = "/dev/null"
		}
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: splitLines(f.Old), B: splitLines(f.New),
			FromFile: from, ToFile: "b/" + f.Path, Context: 3,
		})
		if err != nil {
			return "", err
		}
		b.WriteString(d)
	}
	return b.String(), nil
}

// splitLines are the lines of data, each with its line end. difflib's SplitLines adds an
// empty line after a final line end, which `git apply` then looks for in vain; a last line
// without one is given one (the diff cannot say "no newline at end of file").
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n"
	return lines
}

// Write writes the changed files. Each file must still hold what Run read (else it was
// changed meanwhile and is left alone); it is replaced whole, through a temporary file in its
// directory renamed over it, keeping its mode, so a crash leaves either version. A new file
// must not exist yet. Links are refused. Every file is tried; the errors are joined.
func (r *Result) Write() error {
	var errs []error
	for _, f := range r.Files {
		if err := writeOne(f); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Path, err))
		}
	}
	return errors.Join(errs...)
}

func writeOne(f FileChange) error {
	mode := fs.FileMode(0o644)
	if f.Old != nil {
		info, err := os.Lstat(f.Abs)
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("not a regular file any more: left alone")
		}
		now, err := safefile.ReadFileNoFollow(f.Abs, maxFile)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, f.Old) {
			return fmt.Errorf("changed since sunset fix read it: left alone (run sunset fix again)")
		}
		mode = info.Mode().Perm()
	} else if _, err := os.Lstat(f.Abs); err == nil {
		return fmt.Errorf("already exists: left alone (remove it or run sunset fix again)")
	}
	dir := filepath.Dir(f.Abs)
	if err := safefile.NotLink(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".sunset-fix-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; cleans up on failure
	if _, err := tmp.Write(f.New); err != nil {
		_ = tmp.Close() // the write error is the one to report
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Abs)
}
