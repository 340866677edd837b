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

// Write writes the changed files, all or nothing per root module (a root module and the
// modules it calls, with the root modules those share: see units.go): when any file of one
// cannot be written, none of it is, not its state clean-up script nor its imports, and its
// state steps leave StateSteps, so that nothing tells Terraform to forget resources its
// configuration still declares. Each file must still hold what Run read (else it was changed
// meanwhile); it is replaced whole, through a temporary file in its directory renamed over
// it, keeping its mode, so a crash leaves either version. A new file must not exist yet.
// Links and read-only files are left alone. The error names each module not written and why.
func (r *Result) Write() error {
	var errs []error
	var failed []string
	for _, u := range r.writeUnits() {
		if err := writeUnit(u.files); err != nil {
			failed = append(failed, u.name)
			errs = append(errs, fmt.Errorf("%s: nothing written, and no state step for it (%s): %w", describeUnit(u.name), filePaths(u.files), err))
		}
	}
	r.withholdSteps(failed)
	return errors.Join(errs...)
}

// staged is a file ready to be renamed over its path.
type staged struct {
	f   FileChange
	tmp string
}

// writeUnit writes the files of one unit, all or none: every file is checked and written to
// its temporary file first; then each is renamed over its own, and when a rename fails the
// files renamed already get their old content back.
func writeUnit(files []FileChange) error {
	var ready []staged
	defer func() {
		for _, s := range ready {
			_ = os.Remove(s.tmp) // gone after the rename; cleans up when the unit fails
		}
	}()
	for _, f := range files {
		tmp, err := stage(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		ready = append(ready, staged{f: f, tmp: tmp})
	}
	for i, s := range ready {
		err := unchanged(s.f) // once more, just before the rename: the window is as short as it can be
		if err == nil {
			err = os.Rename(s.tmp, s.f.Abs)
		}
		if err != nil {
			return errors.Join(fmt.Errorf("%s: %w", s.f.Path, err), undo(ready[:i]))
		}
	}
	return nil
}

// undo puts back what the renames of done replaced: the old content, or no file for a new one.
func undo(done []staged) error {
	var errs []error
	for _, s := range done {
		var err error
		if s.f.Old == nil {
			err = os.Remove(s.f.Abs)
		} else {
			back := s.f
			back.Old, back.New = s.f.New, s.f.Old
			var tmp string
			if tmp, err = stage(back); err == nil {
				err = os.Rename(tmp, s.f.Abs)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: written, and could not be put back (%w): restore it from version control", s.f.Path, err))
		}
	}
	return errors.Join(errs...)
}

// stage checks that f can be written (see Write) and writes its new content to a temporary
// file beside it, with the mode the file has; it returns the temporary file's path.
func stage(f FileChange) (string, error) {
	mode, err := writable(f)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(f.Abs)
	if err := safefile.NotLink(dir); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".sunset-fix-*")
	if err != nil {
		return "", err
	}
	if _, err = tmp.Write(f.New); err == nil {
		err = tmp.Chmod(mode)
	}
	if err != nil {
		return "", errors.Join(err, safefile.RemoveTemp(tmp))
	}
	if err := tmp.Close(); err != nil {
		return "", errors.Join(err, os.Remove(tmp.Name()))
	}
	return tmp.Name(), nil
}

// writable checks that f may be written and returns the mode to give it: an existing file
// must be a regular file, not a link, writable (a read-only mode is the owner's word, even to
// a user the system would let through) and unchanged since Run read it; a new file must not
// exist.
func writable(f FileChange) (fs.FileMode, error) {
	if f.Old == nil {
		if _, err := os.Lstat(f.Abs); err == nil {
			return 0, errors.New("already exists: left alone (remove it or run sunset fix again)")
		}
		return 0o644, nil
	}
	info, err := os.Lstat(f.Abs)
	if err != nil {
		return 0, err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return 0, errors.New("a symbolic link: sunset fix does not write through links")
	case !info.Mode().IsRegular():
		return 0, errors.New("not a regular file any more: left alone")
	case info.Mode().Perm()&0o222 == 0:
		return 0, fmt.Errorf("read-only (mode %04o): left alone (make it writable, then run sunset fix again)", info.Mode().Perm())
	}
	if w, err := os.OpenFile(f.Abs, os.O_WRONLY, 0); err != nil {
		return 0, fmt.Errorf("not writable: %w", err)
	} else if err := w.Close(); err != nil {
		return 0, err
	}
	return info.Mode().Perm(), unchanged(f)
}

// unchanged checks that the file still holds what Run read (a new file: that none is there).
func unchanged(f FileChange) error {
	if f.Old == nil {
		if _, err := os.Lstat(f.Abs); err == nil {
			return errors.New("created meanwhile: left alone (run sunset fix again)")
		}
		return nil
	}
	now, err := safefile.ReadFileNoFollow(f.Abs, maxFile)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, f.Old) {
		return errors.New("changed since sunset fix read it: left alone (run sunset fix again)")
	}
	return nil
}

func filePaths(files []FileChange) string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return strings.Join(out, ", ")
}
