package ci

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testToken is the job's github.token in these tests.
const testToken = "ghs_test-token"

// githubAPI stands for the API the action asks whether the SARIF upload is allowed: the
// code scanning analyses of acme/infra answer status to the job's token.
type githubAPI struct {
	status int

	mu    sync.Mutex
	asked int
}

func (g *githubAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.asked++
	g.mu.Unlock()
	if r.URL.Path != "/repos/acme/infra/code-scanning/analyses" || r.Header.Get("Authorization") != "Bearer "+testToken {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	w.WriteHeader(g.status)
	_, _ = w.Write([]byte("[]"))
}

// job is a job that uses the action on a copy of the sample repository; uploads records the
// with: of each upload-sarif step.
type job struct {
	t         *testing.T
	workspace string
	summary   string // GITHUB_STEP_SUMMARY
	api       *githubAPI
	uploads   []map[string]string
	uploadErr error // what the upload-sarif step fails with
	c         *composite
}

// newJob lays out a runner: the sample repository as the workspace, a tool cache shared by
// the jobs of a test (cache, as actions/cache would restore it), the releases and the API.
func newJob(t *testing.T, releasesURL, cache string, apiStatus int) *job {
	t.Helper()
	runnerOS, runnerArch, _ := platform(t)
	j := &job{t: t, workspace: t.TempDir(), api: &githubAPI{status: apiStatus}}
	if err := os.CopyFS(j.workspace, os.DirFS(sampleDir(t))); err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(j.api)
	t.Cleanup(api.Close)
	tmp := t.TempDir()
	j.summary = filepath.Join(tmp, "summary.md")
	env := map[string]string{
		// sunset comes only from the install step: not this test's own copy on PATH.
		"PATH": pathWithout("sunset"), "HOME": tmp, "GORACE": os.Getenv("GORACE"),
		"CI": "true", "GITHUB_ACTIONS": "true", "NO_COLOR": "1", "SUNSET_AS_OF": "2026-01-01",
		"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch, "RUNNER_TEMP": tmp, "RUNNER_TOOL_CACHE": cache,
		"GITHUB_WORKSPACE": j.workspace, "GITHUB_REPOSITORY": "acme/infra", "GITHUB_API_URL": api.URL,
		"GITHUB_STEP_SUMMARY": j.summary, "SUNSET_RELEASES_URL": releasesURL,
	}
	j.c = &composite{
		t: t, action: loadAction(t, actionDir(t)), dir: actionDir(t), workspace: j.workspace, env: env,
		github: map[string]any{"token": testToken, "repository": "acme/infra", "api_url": api.URL, "workspace": j.workspace},
		uses:   j.uses,
	}
	return j
}

// uses stands for the actions the action calls: actions/cache (a miss) and upload-sarif.
func (j *job) uses(uses string, with map[string]string) (map[string]string, error) {
	switch uses {
	case "actions/cache@v4":
		if with["path"] == "" || !strings.Contains(with["key"], testVersion) {
			j.t.Errorf("actions/cache with %v: want the install directory, keyed on the version", with)
		}
		return map[string]string{"cache-hit": "false"}, nil
	case "github/codeql-action/upload-sarif@v4":
		j.uploads = append(j.uploads, with)
		return nil, j.uploadErr
	}
	j.t.Fatalf("uses %s: not an action these tests stand for", uses)
	return nil, nil
}

// pathWithout is PATH without the directories that hold name.
func pathWithout(name string) string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// sarifResults reads the rule ids and files of a SARIF log's results.
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("%s: not a SARIF log of one run (%v):\n%s", path, err, data)
	}
	got := []string{}
	for _, r := range log.Runs[0].Results {
		for _, l := range r.Locations {
			got = append(got, r.RuleID+" "+l.PhysicalLocation.ArtifactLocation.URI)
		}
	}
	slices.Sort(got)
	return got
}

func (j *job) fatalf(format string, args ...any) {
	j.t.Helper()
	j.t.Fatalf(format+"\nsteps run: %s\nlog:\n%s", append(args, strings.Join(j.c.ran, ", "), j.c.log.String())...)
}

var errRefused = errors.New("resource not accessible by integration")

// TestActionGate runs the action's steps on the sample repository as the runner does, with
// a release served locally for the install and an API that says whether the token may
// upload to code scanning.
func TestActionGate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: .ci/run runs on a machine that has it")
	}
	_, releasesURL := serveRelease(t, nil)
	cache := t.TempDir() // shared: the first job downloads, the others find sunset there
	t.Run("deprecated", func(t *testing.T) { testActionDeprecated(t, newJob(t, releasesURL, cache, http.StatusOK)) })
	t.Run("clean", func(t *testing.T) { testActionClean(t, newJob(t, releasesURL, cache, http.StatusNotFound)) })
	t.Run("no-permission", func(t *testing.T) { testActionNoPermission(t, newJob(t, releasesURL, cache, http.StatusForbidden)) })
	t.Run("upload-refused", func(t *testing.T) { testActionUploadRefused(t, releasesURL, cache) })
	t.Run("inputs", func(t *testing.T) { testActionInputs(t, newJob(t, releasesURL, cache, http.StatusForbidden)) })
	t.Run("fix-check", func(t *testing.T) { testActionFixCheck(t, releasesURL, cache) })
}

// testActionDeprecated: the gate fails with sunset's exit code after annotating the
// deprecated resources, writing the job summary and uploading the SARIF report.
func testActionDeprecated(t *testing.T, j *job) {
	ok, outputs := j.c.run(nil)
	if ok || outputs["exit-code"] != "1" || j.c.ran[len(j.c.ran)-1] != "Gate" {
		j.fatalf("action: success %v, outputs %v; want a failure at the Gate with exit code 1", ok, outputs)
	}
	stdout := j.c.stdout.String()
	for _, want := range []string{
		"::error file=firewall.tf,line=3,col=1,endLine=6,endColumn=2,title=filters%3A Filters API::",
		"::error file=firewall.tf,line=8,col=1,endLine=12,endColumn=2,title=firewall-rules%3A Firewall rules API::",
		"sunset " + testVersion + " for ",
	} {
		if !strings.Contains(stdout, want) {
			j.fatalf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "file=rules.tf") {
		j.fatalf("the clean file is annotated:\n%s", stdout)
	}
	want := []string{"filters firewall.tf", "firewall-rules firewall.tf"}
	if got := sarifResults(t, filepath.Join(j.workspace, "sunset.sarif")); !slices.Equal(got, want) {
		j.fatalf("SARIF results %v, want %v", got, want)
	}
	if len(j.uploads) != 1 || j.uploads[0]["sarif_file"] != "sunset.sarif" || j.uploads[0]["category"] != "sunset" {
		j.fatalf("uploads %v, want sunset.sarif in category sunset", j.uploads)
	}
	if summary, err := os.ReadFile(j.summary); err != nil || !strings.Contains(string(summary), "firewall-rules") {
		j.fatalf("job summary (%v):\n%s", err, summary)
	}
}

// testActionClean: the clean file alone passes, with an empty SARIF report, uploaded (the
// API's 404 is a repository without analyses yet).
func testActionClean(t *testing.T, j *job) {
	ok, outputs := j.c.run(map[string]string{"paths": "rules.tf"})
	if !ok || outputs["exit-code"] != "0" || outputs["sarif-file"] != "sunset.sarif" || outputs["version"] != testVersion {
		j.fatalf("action: success %v, outputs %v; want a pass", ok, outputs)
	}
	if strings.Contains(j.c.stdout.String(), "::error") || strings.Contains(j.c.log.String(), "downloaded") {
		j.fatalf("a clean run annotated an error, or downloaded sunset again instead of using the tool cache")
	}
	if got := sarifResults(t, filepath.Join(j.workspace, "sunset.sarif")); len(got) != 0 {
		j.fatalf("SARIF results %v, want none", got)
	}
	if len(j.uploads) != 1 {
		j.fatalf("uploads %v, want the report", j.uploads)
	}
}

// testActionNoPermission: a token that may not read code scanning skips the upload with a
// notice; the gate still fails on the findings.
func testActionNoPermission(t *testing.T, j *job) {
	ok, outputs := j.c.run(nil)
	if ok || outputs["exit-code"] != "1" || len(j.uploads) != 0 || j.api.asked != 1 {
		j.fatalf("action: success %v, outputs %v, uploads %v, API asked %d times; want no upload, a failed gate", ok, outputs, j.uploads, j.api.asked)
	}
	if !strings.Contains(j.c.stdout.String(), "::notice title=sunset::SARIF report not uploaded to code scanning") {
		j.fatalf("no notice of the skipped upload:\n%s", j.c.stdout.String())
	}
}

// testActionUploadRefused: an upload that fails is a note with upload-sarif auto, and fails
// the action with true; false asks nothing and uploads nothing.
func testActionUploadRefused(t *testing.T, releasesURL, cache string) {
	for _, tc := range []struct {
		upload  string
		pass    bool
		uploads int
	}{{"auto", true, 1}, {"true", false, 1}, {"false", true, 0}} {
		j := newJob(t, releasesURL, cache, http.StatusOK)
		j.uploadErr = errRefused
		ok, outputs := j.c.run(map[string]string{"paths": "rules.tf", "upload-sarif": tc.upload})
		if ok != tc.pass || len(j.uploads) != tc.uploads || outputs["exit-code"] != "0" {
			j.fatalf("upload-sarif %s, upload refused: success %v, uploads %d; want %v, %d", tc.upload, ok, len(j.uploads), tc.pass, tc.uploads)
		}
		if tc.upload != "auto" && j.api.asked != 0 {
			j.fatalf("upload-sarif %s asked the API", tc.upload)
		}
	}
}

// testActionInputs: fail-on, baseline, formats and sarif-file reach sunset check.
func testActionInputs(t *testing.T, j *job) {
	ok, outputs := j.c.run(map[string]string{"fail-on": "none", "formats": "json:sunset.json\njunit:sunset-junit.xml", "sarif-file": ""})
	if !ok || outputs["exit-code"] != "0" || outputs["sarif-file"] != "" || !strings.Contains(j.c.stdout.String(), "::error file=firewall.tf") {
		j.fatalf("fail-on none: success %v, outputs %v; want a pass that still annotates, no SARIF", ok, outputs)
	}
	for _, f := range []string{"sunset.json", "sunset-junit.xml"} {
		if _, err := os.Stat(filepath.Join(j.workspace, f)); err != nil {
			j.fatalf("formats: %v", err)
		}
	}
	cmd := exec.Command(installedSunset(t, j.c.env["RUNNER_TOOL_CACHE"]), "check", "--write-baseline", ".sunset-baseline.json", ".")
	cmd.Dir, cmd.Env = j.workspace, environ(j.c.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("write-baseline: %v\n%s", err, out)
	}
	j.c.stdout.Reset()
	if ok, outputs := j.c.run(map[string]string{"baseline": ".sunset-baseline.json"}); !ok || outputs["exit-code"] != "0" || strings.Contains(j.c.stdout.String(), "::error") {
		j.fatalf("with the baseline: success %v, outputs %v; want a pass without annotations", ok, outputs)
	}
}

// installedSunset is the sunset the action installed in the tool cache.
func installedSunset(t *testing.T, cache string) string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(cache, "sunset", testVersion, "*", "sunset"))
	if err != nil || len(found) != 1 {
		t.Fatalf("installed sunset: %v %v", found, err)
	}
	return found[0]
}

// testActionFixCheck: mode fix-check fails while the Terraform has something to rewrite,
// showing the rewrite, and passes on the clean file; it writes and uploads no SARIF.
func testActionFixCheck(t *testing.T, releasesURL, cache string) {
	for _, tc := range []struct {
		paths, code string
		pass        bool
	}{{"firewall.tf", "1", false}, {"rules.tf", "0", true}} {
		j := newJob(t, releasesURL, cache, http.StatusOK)
		ok, outputs := j.c.run(map[string]string{"mode": "fix-check", "paths": tc.paths})
		if ok != tc.pass || outputs["exit-code"] != tc.code || outputs["sarif-file"] != "" || len(j.uploads) != 0 {
			j.fatalf("fix-check %s: success %v, outputs %v, uploads %d; want %v, exit %s, no SARIF", tc.paths, ok, outputs, len(j.uploads), tc.pass, tc.code)
		}
		if !tc.pass && !strings.Contains(j.c.stdout.String(), `+resource "cloudflare_ruleset"`) {
			j.fatalf("fix-check shows no rewrite:\n%s", j.c.stdout.String())
		}
	}
}
