package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// output is one place a run will write to: name is the flag as given ("--snapshot-out
// snap.json"), for errors; dir says it is a directory sunset creates (--plan-dir), not a file.
type output struct {
	name string
	path string
	dir  bool
}

// fileOutput is the output of a file flag, none when the flag is not set.
func fileOutput(flag, path string) []output {
	if path == "" {
		return nil
	}
	return []output{{name: flag + " " + path, path: path}}
}

// dirOutput is the output of a directory flag, none when the flag is not set.
func dirOutput(flag, path string) []output {
	if path == "" {
		return nil
	}
	return []output{{name: flag + " " + path, path: path, dir: true}}
}

// formatOutputs lists the files of the --format destinations (standard output needs no check).
func formatOutputs(specs []reports.FormatSpec) []output {
	var out []output
	for _, spec := range specs {
		if !spec.Stdout() {
			out = append(out, output{name: "--format " + spec.String(), path: spec.Path})
		}
	}
	return out
}

// checkOutputs checks every output before the run reads anything, so that a mistyped path
// fails in a second rather than after a scan of hours: a file's directory must exist and
// take a new file, and nothing at the path may be a symbolic link, a directory (for a file)
// or a read-only file. The writes themselves still refuse links (createOutput), as the tree
// may change meanwhile. An unwritable output is fatal (exit 3), as it is when found later.
func checkOutputs(outs []output) error {
	for _, o := range outs {
		var err error
		if o.dir {
			err = checkOutputDir(o.path)
		} else {
			err = checkOutputFile(o.path)
		}
		if err != nil {
			return fatalError(fmt.Errorf("cannot write %s: %w", o.name, plainCause(err)))
		}
	}
	return nil
}

// checkOutputFile checks one output file: see checkOutputs. Existing devices and FIFOs
// (/dev/null, a pipe the user made) are accepted as createOutput accepts them.
func checkOutputFile(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkDirTakesFile(filepath.Dir(path))
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", path, errLinkedOutput)
	case info.IsDir():
		return fmt.Errorf("%s is a directory; give a file path", path)
	case info.Mode().IsRegular():
		// Opened for writing without truncating or creating: nothing in it is lost yet.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	return nil
}

// checkOutputDir checks a directory sunset creates and fills (--plan-dir DIR): when it exists it
// is a real directory that takes files and holds no link where a file goes; else its nearest
// existing parent takes new entries (MkdirNoFollow creates the rest).
func checkOutputDir(dir string) error {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(dir)
		for parent != filepath.Dir(parent) {
			if _, err := os.Stat(parent); !errors.Is(err, fs.ErrNotExist) {
				break
			}
			parent = filepath.Dir(parent)
		}
		return checkDirTakesFile(parent)
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", dir, errLinkedOutput)
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	for _, name := range planOutputs {
		if info, err := os.Lstat(filepath.Join(dir, name)); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %w", filepath.Join(dir, name), errLinkedOutput)
		}
	}
	return checkDirTakesFile(dir)
}

// errLinkedOutput says why a link where an output goes is refused (as safefile.Create does).
var errLinkedOutput = errors.New("is a symbolic link; sunset does not write through links (remove it or choose another output path)")

// planOutputs are the entries writePlanDir makes in its directory.
var planOutputs = []string{"plan.json", "plan.md", "terraform"}

// checkDirTakesFile checks that dir is a directory in which a file can be created, by
// creating (and removing) one: permission bits, ACLs, read-only mounts and a full quota of
// inodes all show only then.
func checkDirTakesFile(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".sunset-write-check-*")
	if err != nil {
		return fmt.Errorf("directory %s does not take new files: %w", dir, plainCause(err))
	}
	name := f.Name()
	_ = f.Close()       // empty, never written
	_ = os.Remove(name) // best effort: the check file is empty and hidden
	return nil
}

// plainCause drops an *os.PathError's path (the message names the path once already), and
// turns a safefile refusal into its reason.
func plainCause(err error) error {
	var re *safefile.RefusedError
	if errors.As(err, &re) {
		return errors.New(re.Reason)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// outputs lists everything a scan writes: the --format files, --snapshot-out and --plan.
func (o *scanOptions) outputs() []output {
	outs := formatOutputs(o.formats)
	outs = append(outs, fileOutput("--snapshot-out", o.snapshotOut)...)
	return append(outs, dirOutput("--plan-dir", o.planDir)...)
}

// outputs lists everything a check writes: the --format files and --write-baseline.
func (o *checkOptions) outputs() []output {
	return append(formatOutputs(o.formats), fileOutput("--write-baseline", o.writeBaseline)...)
}
