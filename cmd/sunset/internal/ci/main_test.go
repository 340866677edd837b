// Package ci tests where sunset runs in other projects' CI: the GitHub Action in
// .github/actions/sunset (actionlint reads a workflow that uses it and the action's own
// steps, its install script runs against a local copy of a release, and its steps run as the
// runner runs a composite action, on a sample repository), the pre-commit hooks of
// .pre-commit-hooks.yaml (pre-commit runs them on sample git repositories) and the CI
// recipes of the documentation (each takes a release, and GitLab's job runs against one).
package ci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
)

// TestMain makes this test binary sunset when it runs under that name: the release archive
// the tests serve holds a copy of it, and the hooks that run the sunset on PATH find it there
// (see TestMain in cmd/sunset for GORACE).
func TestMain(m *testing.M) {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
	testscript.Main(m, map[string]func(){
		"sunset": func() { os.Exit(cli.Main(os.Args, cli.SystemStreams())) },
	})
}

// root is the repository's top directory.
func root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// actionDir is the action's directory.
func actionDir(t testing.TB) string {
	return filepath.Join(root(t), ".github", "actions", "sunset")
}

// sampleDir is the sample repository the action and the hooks are run on: a Terraform file
// with deprecated resources and a clean one.
func sampleDir(t testing.TB) string {
	return filepath.Join(root(t), "testdata", "ci", "sample")
}
