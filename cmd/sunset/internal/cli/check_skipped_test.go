package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/sunsetscan/sunset/reports"
)

// TestCheckNamesFilesNotReadInEveryFormat: a symbolic link and a FIFO the walk meets are not
// read (a link is not followed, a pipe not waited on), and every format says so as it says
// that a binary was skipped: the formats with a summary of their own name the files in it,
// and the lines on stderr, the summary of every other format, name them too.
func TestCheckNamesFilesNotReadInEveryFormat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := checkRepo(t, map[string]string{"main.sh": "echo hello\n", "logo.png": "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\x01\x02\x03", 60)})
	if err := os.Symlink("main.sh", filepath.Join(dir, "linked.sh")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "queue"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	args := []string{"check", "--as-of", "2025-07-01", "--fail-on", "notice"}
	for _, f := range reports.Formats() {
		args = append(args, "--format", f+":"+filepath.Join(out, f))
	}
	r := runSunset(t, nil, append(args, dir)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := []string{"linked.sh (symbolic link)", "queue (FIFO)", "logo.png (binary)"}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not name %q:\n%s", w, r.stderr)
		}
	}
	// The formats with a summary of their own: the file, the kind of file.
	for _, f := range []string{"json", "table", "markdown", "html", "sarif", "junit", "github"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"linked.sh", "queue", "logo.png"} {
			if !strings.Contains(string(data), name) {
				t.Errorf("%s report does not name %s", f, name)
			}
		}
		if !strings.Contains(string(data), "symbolic link") || !strings.Contains(string(data), "FIFO") {
			t.Errorf("%s report does not say why they were not read", f)
		}
	}
}
