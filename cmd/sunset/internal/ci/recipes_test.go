package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// releasesURL is where the documentation downloads release binaries from.
const releasesURL = "https://github.com/sunsetscan/sunset/releases"

// recipes are the CI configurations the README and the help topics show, by where they are
// ("check.md block 2"): their yaml code blocks that are a GitHub workflow (jobs:) or a
// .gitlab-ci.yml.
func recipes(t *testing.T) map[string]string {
	t.Helper()
	docs, _ := filepath.Glob(filepath.Join(root(t), "cmd", "sunset", "help", "*.md"))
	out := map[string]string{}
	for _, doc := range append(docs, filepath.Join(root(t), "README.md")) {
		n := 0
		for _, m := range regexp.MustCompile("(?ms)^ *```yaml\n(.*?)^ *```").FindAllStringSubmatch(string(readFile(t, doc)), -1) {
			if strings.Contains(m[1], "jobs:") || strings.HasPrefix(m[1], "# .gitlab-ci.yml\n") {
				n++
				out[filepath.Base(doc)+" block "+strconv.Itoa(n)] = m[1]
			}
		}
	}
	return out
}

// goBuild is a line of a CI configuration that compiles sunset.
var goBuild = regexp.MustCompile(`\bgo (install|build|run)\b|setup-go`)

// TestCIRecipesTakeARelease: every CI recipe of the documentation installs sunset with the
// action or downloads a release binary with its SHA256SUMS; none compiles it in the job.
func TestCIRecipesTakeARelease(t *testing.T) {
	t.Parallel()
	all := recipes(t)
	gitlab := 0
	for name, block := range all {
		uses := strings.Contains(block, remoteAction)
		downloads := strings.Contains(block, releasesURL+"/download/") && strings.Contains(block, "sha256sum -c")
		if !uses && !downloads {
			t.Errorf("%s installs sunset neither with the action nor from a release:\n%s", name, block)
		}
		if m := goBuild.FindString(block); m != "" {
			t.Errorf("%s compiles sunset in the job (%s):\n%s", name, m, block)
		}
		if strings.HasPrefix(block, "# .gitlab-ci.yml\n") {
			gitlab++
		}
	}
	if len(all) < 3 || gitlab == 0 {
		t.Fatalf("%d recipes, %d for GitLab: want the README's, the check topic's and GitLab's", len(all), gitlab)
	}
}

// gitlabJob is the job of the documentation's .gitlab-ci.yml.
type gitlabJob struct {
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

// gitlabRecipe is the documentation's .gitlab-ci.yml job.
func gitlabRecipe(t *testing.T) gitlabJob {
	t.Helper()
	for name, block := range recipes(t) {
		if !strings.HasPrefix(block, "# .gitlab-ci.yml\n") {
			continue
		}
		var jobs map[string]gitlabJob
		if err := yaml.Unmarshal([]byte(block), &jobs); err != nil || len(jobs) != 1 {
			t.Fatalf("%s: want one job (%v):\n%s", name, err, block)
		}
		for _, job := range jobs {
			return job
		}
	}
	t.Fatal("no .gitlab-ci.yml in the documentation")
	return gitlabJob{}
}

// runGitLabJob runs the job's script lines as the runner does (the first that fails ends the
// job) in a copy of the sample repository, with its variables but SUNSET_VERSION, which
// names the release served at url; it returns the workspace, the output and the exit code.
func runGitLabJob(t *testing.T, job gitlabJob, url string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sampleDir(t))); err != nil {
		t.Fatal(err)
	}
	script := "set -e\n" + strings.ReplaceAll(strings.Join(job.Script, "\n"), releasesURL, url) + "\n"
	env := map[string]string{
		"PATH": pathWithout("sunset"), "HOME": t.TempDir(), "TMPDIR": t.TempDir(), "GORACE": os.Getenv("GORACE"),
		"CI": "true", "GITLAB_CI": "true", "CI_PROJECT_DIR": dir, "NO_COLOR": "1", "SUNSET_AS_OF": "2026-01-01",
	}
	for k, v := range job.Variables {
		env[k] = v
	}
	env["SUNSET_VERSION"] = testVersion
	out, code := run(t, dir, environ(env), "sh", "-c", script)
	return dir, out, code
}

// TestGitLabRecipe runs the documentation's GitLab CI job against a release served locally:
// it downloads the archive and SHA256SUMS, checks the archive, and the gate fails on the
// sample repository's deprecated file with the code quality and JUnit reports its
// artifacts name; an archive whose checksum differs is never run.
func TestGitLabRecipe(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the recipe downloads the linux/amd64 binary: not run on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"sh", "wget", "sha256sum", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the recipe is not run", tool)
		}
	}
	job := gitlabRecipe(t)
	_, url := serveRelease(t, nil)
	dir, out, code := runGitLabJob(t, job, url)
	if code != 1 || !strings.Contains(out, "firewall.tf:8:1: error firewall-rules") || strings.Contains(out, "rules.tf") {
		t.Fatalf("the job: exit %d, want 1 (the gate) on firewall.tf alone:\n%s", code, out)
	}
	reports := make([]string, 0, len(job.Artifacts.Reports))
	for kind, file := range job.Artifacts.Reports {
		reports = append(reports, kind)
		if data, err := os.ReadFile(filepath.Join(dir, file)); err != nil || !strings.Contains(string(data), "firewall.tf") {
			t.Errorf("artifacts: reports: %s: %s (%v):\n%.300s", kind, file, err, data)
		}
	}
	if sort.Strings(reports); strings.Join(reports, " ") != "codequality junit" {
		t.Errorf("artifacts: reports %v, want codequality and junit", reports)
	}

	_, _, asset := platform(t)
	_, url = serveRelease(t, []byte(strings.Repeat("0", 64)+"  "+asset+"\n"))
	dir, out, code = runGitLabJob(t, job, url)
	if _, err := os.Stat(filepath.Join(dir, job.Artifacts.Reports["codequality"])); code == 0 || err == nil {
		t.Fatalf("a release whose checksum differs: exit %d, reports written %v; want the job stopped before sunset runs:\n%s", code, err == nil, out)
	}
}
