package ci

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// installRun is one run of install.sh.
type installRun struct {
	code    int
	log     string            // stdout and stderr
	outputs map[string]string // GITHUB_OUTPUT
	path    []string          // GITHUB_PATH
}

// runInstall runs install.sh ARG as the action's steps do, with env over a runner's
// environment whose tool cache is toolCache.
func runInstall(t *testing.T, arg, toolCache string, env map[string]string) installRun {
	t.Helper()
	runnerOS, runnerArch, _ := platform(t)
	tmp := t.TempDir()
	output, path := filepath.Join(tmp, "output"), filepath.Join(tmp, "path")
	full := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": tmp, "GORACE": os.Getenv("GORACE"),
		"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch, "RUNNER_TEMP": tmp, "RUNNER_TOOL_CACHE": toolCache,
		"GITHUB_OUTPUT": output, "GITHUB_PATH": path,
	}
	for k, v := range env {
		full[k] = v
	}
	for _, f := range []string{output, path} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(actionDir(t), "install.sh"), arg)
	cmd.Env = environ(full)
	out, err := cmd.CombinedOutput()
	run := installRun{log: string(out), outputs: readOutputs(t, output), path: readLines(t, path)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return run
}

// install resolves the version, then installs it, as the action's two steps do.
func install(t *testing.T, toolCache string, env map[string]string) (resolved, installed installRun) {
	t.Helper()
	resolved = runInstall(t, "resolve", toolCache, env)
	if resolved.code != 0 {
		t.Fatalf("install.sh resolve: exit %d\n%s", resolved.code, resolved.log)
	}
	next := map[string]string{
		"SUNSET_VERSION": resolved.outputs["version"], "SUNSET_DIR": resolved.outputs["dir"],
		"SUNSET_CACHEABLE": resolved.outputs["cacheable"],
	}
	for k, v := range env {
		next[k] = v
	}
	return resolved, runInstall(t, "install", toolCache, next)
}

// fakeGo puts a go command first on PATH that records its arguments and installs a stand-in
// sunset into $GOBIN; it returns the PATH and the file the arguments go to.
func fakeGo(t *testing.T) (path, calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$@\" >>" + calls + "\nprintf '#!/bin/sh\\necho sunset built by go\\n' >\"$GOBIN/sunset\"\nchmod +x \"$GOBIN/sunset\"\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), calls
}

// TestInstallChecksRelease: the latest release is found through the releases page's
// redirect, its archive checked against SHA256SUMS, unpacked into the tool cache and put on
// PATH; a second run finds it there and downloads nothing.
func TestInstallChecksRelease(t *testing.T) {
	t.Parallel()
	rs, url := serveRelease(t, nil)
	_, _, asset := platform(t)
	cache := t.TempDir()
	resolved, installed := install(t, cache, map[string]string{"SUNSET_RELEASES_URL": url, "INPUT_VERSION": "latest"})
	dir := filepath.Join(cache, "sunset", testVersion, filepath.Base(resolved.outputs["dir"]))
	if resolved.outputs["version"] != testVersion || resolved.outputs["cacheable"] != "true" || resolved.outputs["dir"] != dir {
		t.Fatalf("resolve: outputs %v, want version %s, cacheable, dir %s\n%s", resolved.outputs, testVersion, dir, resolved.log)
	}
	if installed.code != 0 || !slices.Equal(installed.path, []string{dir}) || !strings.Contains(installed.log, "as SHA256SUMS says") {
		t.Fatalf("install: exit %d, GITHUB_PATH %v, want 0 and %s\n%s", installed.code, installed.path, dir, installed.log)
	}
	if out, err := exec.Command(filepath.Join(dir, "sunset"), "version").CombinedOutput(); err != nil || !strings.Contains(string(out), "sunset") {
		t.Fatalf("the installed sunset: %v\n%s", err, out)
	}
	if got := rs.downloads(); !slices.Equal(got, []string{asset, "SHA256SUMS"}) {
		t.Fatalf("downloaded %v, want the archive and SHA256SUMS", got)
	}
	_, again := install(t, cache, map[string]string{"SUNSET_RELEASES_URL": url, "INPUT_VERSION": "v" + testVersion})
	if again.code != 0 || !strings.Contains(again.log, "from the cache") || len(rs.downloads()) != 2 {
		t.Fatalf("second install: exit %d, downloads %v, want the cached binary\n%s", again.code, rs.downloads(), again.log)
	}
}

// TestInstallRefusesBadChecksum: an archive whose SHA-256 is not the one SHA256SUMS gives,
// or that SHA256SUMS does not list, is not installed, and Go does not build it instead.
func TestInstallRefusesBadChecksum(t *testing.T) {
	t.Parallel()
	_, _, asset := platform(t)
	for name, sums := range map[string]string{
		"wrong":    strings.Repeat("0", 64) + "  " + asset + "\n",
		"unlisted": strings.Repeat("0", 64) + "  sunset_" + testVersion + "_plan9_mips.tar.gz\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, url := serveRelease(t, []byte(sums))
			path, calls := fakeGo(t)
			cache := t.TempDir()
			resolved, installed := install(t, cache, map[string]string{"SUNSET_RELEASES_URL": url, "PATH": path})
			if installed.code == 0 || !strings.Contains(installed.log, "::error title=sunset install::") || !strings.Contains(installed.log, "not installed") {
				t.Fatalf("install: exit %d, want a refusal\n%s", installed.code, installed.log)
			}
			if _, err := os.Stat(filepath.Join(resolved.outputs["dir"], "sunset")); err == nil {
				t.Error("the refused binary is in the tool cache")
			}
			if _, err := os.Stat(calls); err == nil {
				t.Error("go install ran after a checksum was refused")
			}
		})
	}
}

// TestInstallFallsBackToGo: with no release binary for the version (no release yet, or a
// branch), Go builds it, at the version asked for; without Go the step says what to do.
func TestInstallFallsBackToGo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ version, latest, want string }{
		{"latest", "", "install github.com/sunsetscan/sunset/cmd/sunset@latest"},
		{"1.2.3", testVersion, "install github.com/sunsetscan/sunset/cmd/sunset@v1.2.3"},
		{"main", testVersion, "install github.com/sunsetscan/sunset/cmd/sunset@main"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			rs, url := serveRelease(t, nil)
			rs.latest = tc.latest
			path, calls := fakeGo(t)
			cache := t.TempDir()
			env := map[string]string{"SUNSET_RELEASES_URL": url, "INPUT_VERSION": tc.version, "PATH": path}
			resolved, installed := install(t, cache, env)
			got, _ := os.ReadFile(calls)
			if installed.code != 0 || strings.TrimSpace(string(got)) != tc.want || !strings.Contains(installed.log, "sunset built by go") {
				t.Fatalf("install: exit %d, go %q, want %q\n%s", installed.code, got, tc.want, installed.log)
			}
			if want := strings.Contains(tc.version, "."); (resolved.outputs["cacheable"] == "true") != want {
				t.Errorf("cacheable %q for version %s", resolved.outputs["cacheable"], tc.version)
			}
			env["PATH"] = pathWithout("go")
			if _, again := install(t, t.TempDir(), env); again.code == 0 || !strings.Contains(again.log, "add actions/setup-go") {
				t.Errorf("install without Go: exit %d, want a failure saying what to do\n%s", again.code, again.log)
			}
		})
	}
}
