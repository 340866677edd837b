package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// DefaultMaxFileSize is the size above which a file is reported and not read.
const DefaultMaxFileSize = 5 << 20

// skipDirs are never descended into: version control, tool caches and vendored code.
var skipDirs = map[string]bool{".git": true, ".terraform": true, "node_modules": true, "vendor": true}

// Options tune a repository check.
type Options struct {
	// Paths are files or directories; a directory is walked, a file is always checked (ignore
	// rules and globs do not apply to a file named explicitly).
	Paths []string
	// Catalog is the deprecation catalog; nil means catalog.Default().
	Catalog *catalog.Catalog
	// AsOf is the day severities are computed for and suppressions expire against.
	AsOf time.Time
	// Include, when not empty, limits walked files to those matching one glob; Exclude skips
	// files and directories matching one. Globs use gitignore syntax, relative to each path.
	Include, Exclude []string
	// MaxFileSize: larger files are reported as errors and not read (0 = DefaultMaxFileSize).
	MaxFileSize int64
	// Workers bounds the files checked at once (0 = the number of CPUs, plus one).
	Workers int
	// NoGitignore turns .gitignore handling off.
	NoGitignore bool
}

// Result is what a check found.
type Result struct {
	// Findings are sorted with scanner.SortFindings; inline suppressions are applied.
	Findings []scanner.Finding
	// Errors are files and directories that could not be read (too large, not a regular file,
	// permission, I/O), ignore files that were refused, and files whose structure was not
	// fully read (What "parse": nesting past sunset's bound; they were text-checked).
	Errors []scanner.RunError
	// Outputs are the files sunset itself wrote (baselines, reports, snapshots, plans),
	// recognised by their content (RecogniseOutput) and not checked, sorted by path: a run
	// never reports what an earlier run wrote into the tree.
	Outputs []OwnOutput
	// Skipped are the files the walk met and did not read, sorted by path, with why: binary
	// (looksBinary; one that may be run as a script is in Errors instead), a symbolic link, a
	// FIFO, socket or device, or one of Outputs. Reports name every one, so that nothing
	// left out passes unsaid.
	Skipped []scanner.SkippedFile
	// FilesScanned counts files read and checked; FilesFailed those in Errors (a file not
	// fully read counts in both); FilesSkipped the Skipped and sunset's configuration file.
	FilesScanned, FilesFailed, FilesSkipped int
	// Bytes is the total size of the files checked.
	Bytes int64
}

// Incomplete reports whether anything could not be read.
func (r *Result) Incomplete() bool { return len(r.Errors) > 0 }

// defaultWorkers is how many files a check reads at once unless told: one more than the
// processors, since a worker waiting on a file's read leaves its processor to the spare
// one. On two cores, the real-code tree of BenchmarkCheckRealCode, best of 21 runs taken
// by turns, five times: 318-337 ms at 3 workers, 324-345 ms at 2 (3 ahead every time, by
// 1.5-2.7%), 331-332 ms at 4.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) + 1 }

// Check walks the paths and checks every file on a bounded pool of workers. It returns an
// error only when a path does not exist or the context ends; unreadable files are Errors.
func Check(ctx context.Context, opts Options) (*Result, error) {
	c := NewChecker(opts.Catalog, opts.AsOf)
	return c.Check(ctx, opts)
}

// Check is the package-level Check with a checker compiled once (benchmarks, several runs).
func (c *Checker) Check(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Paths) == 0 {
		opts.Paths = []string{"."}
	}
	for _, p := range opts.Paths {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("path %s: %w", p, unwrapPathError(err))
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = defaultWorkers()
	}
	maxSize := opts.MaxFileSize
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	res := &Result{}
	var mu sync.Mutex
	p := pool.New().WithMaxGoroutines(workers)
	w := &walker{
		ctx: ctx, include: newGlobSet(opts.Include), exclude: newGlobSet(opts.Exclude),
		gitignore: !opts.NoGitignore, maxSize: maxSize,
		fail: func(path, what, msg string) {
			mu.Lock()
			res.Errors = append(res.Errors, scanner.RunError{Path: path, What: what, Message: msg})
			res.FilesFailed++
			mu.Unlock()
		},
		skip: func(path, why string) {
			mu.Lock()
			if why != "" {
				res.Skipped = append(res.Skipped, scanner.SkippedFile{Path: path, Why: why})
			}
			res.FilesSkipped++
			mu.Unlock()
		},
		own: func(path string, kind OutputKind) {
			mu.Lock()
			res.Outputs = append(res.Outputs, OwnOutput{Path: path, Kind: kind})
			res.Skipped = append(res.Skipped, scanner.SkippedFile{Path: path, Why: "written by sunset: " + string(kind)})
			res.FilesSkipped++
			mu.Unlock()
		},
	}
	var posted postedRules
	w.file = func(f walkFile) {
		p.Go(func() {
			fr, size, ok := c.checkWalked(w, f, maxSize)
			if !ok {
				return
			}
			held := posted.hold(f.abs, fr)
			mu.Lock()
			if !held {
				res.Findings = append(res.Findings, fr.Findings...)
			}
			res.FilesScanned++
			res.Bytes += size
			mu.Unlock()
		})
	}
	for _, root := range opts.Paths {
		w.root(root)
	}
	p.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Findings = append(res.Findings, posted.findings()...)
	scanner.SortFindings(res.Findings)
	sort.Slice(res.Outputs, func(i, j int) bool { return res.Outputs[i].Path < res.Outputs[j].Path })
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	sort.Slice(res.Errors, func(i, j int) bool {
		a, b := res.Errors[i], res.Errors[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.What < b.What
	})
	return res, nil
}

// checkWalked reads and checks one file of the walk; false when it was not checked: too
// large, unreadable (both reported through w.fail), binary, or an output of sunset (w.own).
// An output over the size limit is told from its first bytes, so that a large report in
// the tree is skipped as what it is rather than failing the run as too large. The file is
// read into a buffer the walk reuses (nothing a check returns refers to it).
func (c *Checker) checkWalked(w *walker, f walkFile, maxSize int64) (FileResult, int64, bool) {
	data, err := safefile.ReadFileInto(f.abs, maxSize, false, readBuffers.get())
	defer func() { readBuffers.put(data) }()
	var tooLarge *safefile.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		if head, err := readHead(f.abs); err == nil {
			if kind, ok := RecogniseOutput(head, false); ok {
				w.own(f.display, kind)
				return FileResult{}, 0, false
			}
		}
		w.fail(f.display, "size", fmt.Sprintf("%d bytes is over the %d-byte limit (--max-file-size); not read", tooLarge.Size, maxSize))
		return FileResult{}, 0, false
	case err != nil:
		w.fail(f.display, "read", unwrapPathError(err).Error())
		return FileResult{}, 0, false
	}
	if path.Base(filepath.ToSlash(f.display)) == ConfigFileName {
		w.skip(f.display, "") // sunset's own configuration: not a file of the repository's to check
		return FileResult{}, 0, false
	}
	if looksBinary(f.display, data) {
		if mayBeScript(f.display, f.abs, data) {
			w.fail(f.display, "binary", "looks binary (control bytes, NUL) but may be run as a script (executable, or in a directory of commands): not checked; if it is a script, check it as text (sunset check --stdin-name NAME.sh - < FILE), else exclude it (--exclude)")
			return FileResult{}, 0, false
		}
		w.skip(f.display, "binary")
		return FileResult{}, 0, false
	}
	if kind, ok := RecogniseOutput(data, true); ok {
		w.own(f.display, kind)
		return FileResult{}, 0, false
	}
	fr := c.CheckFile(f.display, KindOf(f.display), data)
	if fr.Unread != "" {
		w.fail(f.display, "parse", fr.Unread)
	}
	return fr, int64(len(data)), true
}

// readBuffers are the buffers files are read into, lowerBuffers those of their lowercase
// copies (see byteBuffers).
var readBuffers, lowerBuffers = newByteBuffers(), newByteBuffers()

// CheckReader checks one file read from r (standard input): kind says how to read it and name
// is the path its findings carry. Files over maxSize (0 = DefaultMaxFileSize) are an error;
// an output of sunset (RecogniseOutput) is not checked, as in a walk.
func (c *Checker) CheckReader(r io.Reader, name string, kind Kind, maxSize int64) (*Result, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	data, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	res := &Result{}
	if out, ok := RecogniseOutput(data, int64(len(data)) <= maxSize); ok {
		res.Outputs = []OwnOutput{{Path: name, Kind: out}}
		res.Skipped = []scanner.SkippedFile{{Path: name, Why: "written by sunset: " + string(out)}}
		res.FilesSkipped = 1
		return res, nil
	}
	if int64(len(data)) > maxSize {
		res.Errors = append(res.Errors, scanner.RunError{Path: name, What: "size", Message: fmt.Sprintf("over the %d-byte limit (--max-file-size); not read", maxSize)})
		res.FilesFailed = 1
		return res, nil
	}
	fr := c.CheckFile(name, kind, data)
	res.Findings = fr.Findings
	res.FilesScanned, res.Bytes = 1, int64(len(data))
	if fr.Unread != "" {
		res.Errors = append(res.Errors, scanner.RunError{Path: name, What: "parse", Message: fr.Unread})
	}
	return res, nil
}

// unwrapPathError drops the operation and path of an *fs.PathError, and the path of a
// refusal (the caller names the path).
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var re *safefile.RefusedError
	if errors.As(err, &re) {
		return errors.New(re.Reason)
	}
	return err
}

// walkFile is a file to check.
type walkFile struct {
	abs     string // path to open
	display string // path findings carry
}

// walker walks roots sequentially (directory reads are cheap) and hands files to the pool.
// Symbolic links are not followed (as git stores them as links), so link cycles cannot loop.
type walker struct {
	ctx       context.Context
	include   globSet
	exclude   globSet
	gitignore bool
	maxSize   int64 // bound of every file read, ignore files included
	file      func(walkFile)
	fail      func(path, what, msg string)
	// skip counts a file not read; why, when not empty, says what it is for the reports.
	skip func(path, why string)
	own  func(path string, kind OutputKind) // a file sunset wrote, not checked
}

func (w *walker) root(root string) {
	info, err := os.Stat(root)
	if err != nil {
		w.fail(displayJoin(root, ""), "read", unwrapPathError(err).Error())
		return
	}
	switch {
	case info.Mode().IsRegular():
		w.file(walkFile{abs: root, display: displayJoin(root, "")})
		return
	case !info.IsDir():
		// check /dev/zero or a FIFO would read forever or block.
		w.fail(displayJoin(root, ""), "read", "not a regular file or a directory; not read")
		return
	}
	var ign ignoreSet
	if w.gitignore {
		ign = w.ignoreFile(ign, root, filepath.Join(".git", "info", "exclude"), "")
	}
	w.dir(root, "", ign)
}

// ignoreFile extends ign with the patterns of the ignore file at root/name (rel is its
// directory below root). A missing file is nothing; one that is a link, not a regular file or
// over the size bound is not used (as git does not follow a linked .gitignore) and reported,
// which makes the run incomplete: --no-gitignore turns the reading off.
func (w *walker) ignoreFile(ign ignoreSet, root, name, rel string) ignoreSet {
	limit := w.maxSize
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	data, err := safefile.ReadFileNoFollow(filepath.Join(root, filepath.FromSlash(rel), name), limit)
	switch {
	case err == nil:
		return ign.with(data, rel)
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR): // .git may be a file (worktrees)
		display := displayJoin(root, path.Join(rel, filepath.ToSlash(name)))
		w.fail(display, "ignore-file", unwrapPathError(err).Error()+" (not used; --no-gitignore skips ignore files)")
	}
	return ign
}

// dir walks the directory at root/rel with the ignore patterns of its parents.
func (w *walker) dir(root, rel string, ign ignoreSet) {
	if w.ctx.Err() != nil {
		return
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.fail(displayJoin(root, rel), "read", unwrapPathError(err).Error())
		return
	}
	if w.gitignore && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return strings.EqualFold(e.Name(), ".gitignore") }) {
		// Only a directory listing one is asked for it (in any case, as a file system that
		// ignores case would open it): most directories have none.
		ign = w.ignoreFile(ign, root, ".gitignore", rel)
	}
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if e.IsDir() {
			if !skipDirs[name] && !ign.ignored(childRel, true) && !w.exclude.match(childRel, true) {
				w.dir(root, childRel, ign)
			}
			continue
		}
		if ign.ignored(childRel, false) || w.exclude.match(childRel, false) || len(w.include) > 0 && !w.include.match(childRel, false) {
			continue
		}
		if why := notRegular(e.Type()); why != "" {
			w.skip(displayJoin(root, childRel), why) // a link is not followed, a pipe not waited on
			continue
		}
		w.file(walkFile{abs: childPath(abs, name), display: displayJoin(root, childRel)})
	}
}

// childPath is filepath.Join(dir, name) for a clean dir and the name of one of its entries,
// without cleaning the result again (the walk joins every file it meets).
func childPath(dir, name string) string {
	switch {
	case dir == ".":
		return name
	case strings.HasSuffix(dir, string(filepath.Separator)):
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// notRegular says what a directory entry that is not a regular file is ("symbolic link",
// "FIFO"), "" for a regular file.
func notRegular(t fs.FileMode) string {
	if t.IsRegular() {
		return ""
	}
	return strings.TrimPrefix(safefile.Describe(t), "a ")
}

// displayJoin is the slash-separated path a finding carries: the root as given, cleaned,
// joined with the path below it ("." disappears: "./infra/main.tf" becomes "infra/main.tf").
func displayJoin(root, rel string) string {
	p := filepath.ToSlash(filepath.Clean(root))
	switch {
	case rel == "":
		return p
	case p == ".":
		return rel
	}
	return strings.TrimSuffix(p, "/") + "/" + rel
}
