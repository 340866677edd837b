package ci

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needTools skips the test when pre-commit or git is not installed.
func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"git", "pre-commit"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install pre-commit; .ci/run installs it): the hooks are not run", tool)
		}
	}
}

// gitEnv is the environment of the git and pre-commit commands: an author, no user or
// system git configuration, pre-commit's cache in cache, and Go's caches as this test's.
func gitEnv(t *testing.T, cache string) []string {
	t.Helper()
	env := []string{
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "PRE_COMMIT_HOME=" + cache,
		"SUNSET_AS_OF=2026-01-01", "NO_COLOR=1",
	}
	// pre-commit's golang hooks build with GOPATH in its cache: the module and build caches
	// stay this machine's, so that modules come from them (else from the proxy).
	for _, v := range []string{"GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		if err == nil {
			env = append(env, v+"="+strings.TrimSpace(string(out)))
		}
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "GIT_") && name != "PRE_COMMIT_HOME" && name != "SUNSET_AS_OF" {
			env = append(env, kv)
		}
	}
	return env
}

// run runs a command in dir and returns its combined output and exit code.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out), 0
}

// must runs a command that must succeed.
func must(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, code := run(t, dir, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

// hookRepo is a git repository of this working tree as it is (committed or not, test data
// left out) that pre-commit can clone, and its commit.
func hookRepo(t *testing.T, env []string) (dir, rev string) {
	t.Helper()
	dir = t.TempDir()
	top := root(t)
	files := must(t, top, env, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		if name == "" || strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(top, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(t, dir, env, "git", "init", "-q")
	must(t, dir, env, "git", "add", "-A")
	must(t, dir, env, "git", "commit", "-q", "-m", "sunset")
	return dir, strings.TrimSpace(must(t, dir, env, "git", "rev-parse", "HEAD"))
}

// project is a new git repository whose .pre-commit-config.yaml uses the hooks ids of the
// repository at hooks, rev.
func project(t *testing.T, env []string, hooks, rev string, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	config := "repos:\n  - repo: " + hooks + "\n    rev: " + rev + "\n    hooks:\n"
	for _, id := range ids {
		config += "      - id: " + id + "\n"
	}
	write(t, dir, ".pre-commit-config.yaml", config)
	must(t, dir, env, "git", "init", "-q")
	must(t, dir, env, "git", "add", ".pre-commit-config.yaml")
	must(t, dir, env, "git", "commit", "-q", "-m", "pre-commit")
	return dir
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sample is the text of a file of the sample repository (testdata/ci/sample).
func sample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "testdata", "ci", "sample", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
