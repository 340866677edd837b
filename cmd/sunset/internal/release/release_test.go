package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// commitDate is the date of the commit the end-to-end test releases.
var commitDate = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// TestReleaseIsReproducible runs .ci/release twice on one commit, in a repository and in a
// worktree of it at another path (git keeps a worktree's .git as a file, not a directory):
// the archives and SHA256SUMS are the same bytes; the binary inside says the version, the
// commit, the commit's date and the Go version it was built with; a tree with changes is
// refused. To keep CI's time it builds linux/amd64 only: a full release builds the six
// platforms the same way (.ci/release 1.2.3, about a minute each on a cold build cache).
func TestReleaseIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sunset twice")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	first := testRepository(t)
	second := filepath.Join(t.TempDir(), "elsewhere", "sunset")
	gitIn(t, first, "worktree", "add", "-q", "--detach", second)
	var outs [2]string
	for i, repo := range []string{first, second} {
		outs[i] = filepath.Join(t.TempDir(), "dist")
		release(t, repo, "--targets", "linux/amd64", "v1.2.3", outs[i])
	}
	for _, name := range []string{"sunset_1.2.3_linux_amd64.tar.gz", sumsFile} {
		a, b := readFile(t, filepath.Join(outs[0], name)), readFile(t, filepath.Join(outs[1], name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two releases of one commit", name)
		}
	}
	sums := string(readFile(t, filepath.Join(outs[0], sumsFile)))
	if !strings.HasSuffix(sums, "  sunset_1.2.3_linux_amd64.tar.gz\n") || strings.Count(sums, "\n") != 1 {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
	commit := strings.TrimSpace(gitIn(t, first, "rev-parse", "HEAD"))
	checkStamps(t, filepath.Join(outs[0], "sunset_1.2.3_linux_amd64.tar.gz"), commit)

	if err := os.WriteFile(filepath.Join(second, "stray.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(second, ".ci", "release"), "--targets", "linux/amd64", "1.2.3", t.TempDir())
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not committed") {
		t.Errorf("a release of a tree with changes: %v\n%s", err, out)
	}
}

// checkStamps runs the binary of a linux/amd64 archive (when this is such a machine) and
// reads `sunset version --format json`.
func checkStamps(t *testing.T, archive, commit string) {
	t.Helper()
	bin := untar(t, archive)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return
	}
	out, err := exec.Command(bin, "version", "--format", "json").Output()
	if err != nil {
		t.Fatalf("sunset version: %v", err)
	}
	var v struct{ Version, Commit, Date, Go, Platform string }
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("sunset version --format json: %v\n%s", err, out)
	}
	want := struct{ Version, Commit, Date, Go, Platform string }{"1.2.3", commit, commitDate.Format(time.RFC3339), runtime.Version(), "linux/amd64"}
	if v != want {
		t.Errorf("sunset version --format json:\n got %+v\nwant %+v", v, want)
	}
}

// untar checks the archive holds the one executable sunset, dated as the commit and owned by
// root, and writes it to a temporary file.
func untar(t *testing.T, archive string) string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(readFile(t, archive)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Name != "sunset" || hdr.Mode != 0o755 || !hdr.ModTime.Equal(commitDate) || hdr.Uid != 0 || hdr.Gid != 0 {
		t.Errorf("archive entry %s mode %o time %v owner %d:%d", hdr.Name, hdr.Mode, hdr.ModTime, hdr.Uid, hdr.Gid)
	}
	bin := filepath.Join(t.TempDir(), "sunset")
	data, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("more than one file in %s", archive)
	}
	return bin
}

// TestArchivesAreReproducible: the tar.gz and the zip of one file are the same bytes however
// often they are made, and hold the file, executable, dated as given.
func TestArchivesAreReproducible(t *testing.T) {
	exe := []byte("#!/bin/sh\necho sunset\n")
	tgz1, err1 := tarGzOf("sunset", exe, commitDate)
	tgz2, err2 := tarGzOf("sunset", exe, commitDate)
	z1, err3 := zipOf("sunset.exe", exe, commitDate.In(time.FixedZone("elsewhere", 3600)))
	z2, err4 := zipOf("sunset.exe", exe, commitDate)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(tgz1, tgz2) || !bytes.Equal(z1, z2) {
		t.Fatal("two archives of one file differ")
	}
	gz, err := gzip.NewReader(bytes.NewReader(tgz1))
	if err != nil {
		t.Fatal(err)
	}
	if hdr, err := tar.NewReader(gz).Next(); err != nil || hdr.Name != "sunset" || hdr.Mode != 0o755 || !hdr.ModTime.Equal(commitDate) {
		t.Errorf("tar: %+v (%v)", hdr, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(z1), int64(len(z1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "sunset.exe" || zr.File[0].Mode().Perm() != 0o755 || !zr.File[0].Modified.Equal(commitDate) {
		t.Errorf("zip: %+v", zr.File[0].FileHeader)
	}
	if got := archiveName("1.2.3", "windows", "arm64"); got != "sunset_1.2.3_windows_arm64.zip" {
		t.Errorf("archive name %s", got)
	}
}

// testRepository is a git repository of this repository's files as they are (committed or
// not, untracked ones aside) in one commit dated commitDate.
func testRepository(t *testing.T) string {
	t.Helper()
	top := strings.TrimSpace(gitIn(t, ".", "rev-parse", "--show-toplevel"))
	rev := strings.TrimSpace(gitIn(t, top, "stash", "create"))
	if rev == "" {
		rev = "HEAD"
	}
	dir := filepath.Join(t.TempDir(), "sunset")
	archive := exec.Command("git", "-C", top, "archive", "--format=tar", rev)
	var tarball bytes.Buffer
	archive.Stdout = &tarball
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive: %v", err)
	}
	extract(t, &tarball, dir)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "-c", "user.name=test", "-c", "user.email=test@example.test", "commit", "-q", "-m", "release test")
	return dir
}

// extract writes the files of a tar stream under dir.
func extract(t *testing.T, r io.Reader, dir string) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			var data []byte
			if data, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(path, data, os.FileMode(hdr.Mode).Perm())
			}
		case tar.TypeSymlink:
			err = os.Symlink(hdr.Linkname, path)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// release runs .ci/release in repo.
func release(t *testing.T, repo string, args ...string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(repo, ".ci", "release")}, args...)...)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/release %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// gitIn runs git in dir with the test commit's dates and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := commitDate.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReleaseTargets: a release without --targets builds linux, darwin and windows on amd64
// and arm64; the version loses its v; a version that is not MAJOR.MINOR.PATCH is refused.
func TestReleaseTargets(t *testing.T) {
	o, err := parseArgs([]string{"--cwd", "/work", "v1.2.3-rc.1", "out"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			want = append(want, goos+"/"+goarch)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(o.targets))
	if !slices.Equal(got, want) || o.version != "1.2.3-rc.1" || o.dir != filepath.Join("/work", "out") {
		t.Errorf("parseArgs: targets %q, version %q, dir %q; want %q, 1.2.3-rc.1, /work/out", got, o.version, o.dir, want)
	}
	for _, bad := range [][]string{{"1.2"}, {"latest"}, {"--targets", "linux", "1.2.3"}, {}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): no error", bad)
		}
	}
}
