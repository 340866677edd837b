package ci

import (
	"strings"
	"testing"
	"time"
)

// deployScript calls the firewall rules API, past its end of life.
const deployScript = "#!/bin/sh\ncurl -X POST \"https://api.cloudflare.com/client/v4/zones/$ZONE_ID/firewall/rules\" -d @rules.json\n"

// committer commits in a project whose pre-commit hooks are installed.
type committer struct {
	t   *testing.T
	dir string
	env []string
}

// commit stages files (name and text) and commits them through the hooks; it returns
// pre-commit's output and whether the commit was made.
func (c committer) commit(files ...string) (string, bool) {
	c.t.Helper()
	before := must(c.t, c.dir, c.env, "git", "rev-parse", "HEAD")
	for i := 0; i < len(files); i += 2 {
		write(c.t, c.dir, files[i], files[i+1])
		must(c.t, c.dir, c.env, "git", "add", files[i])
	}
	out, code := run(c.t, c.dir, c.env, "git", "commit", "-m", "change")
	after := must(c.t, c.dir, c.env, "git", "rev-parse", "HEAD")
	if (code == 0) != (before != after) {
		c.t.Fatalf("git commit: exit %d, HEAD %s -> %s\n%s", code, before, after, out)
	}
	return out, code == 0
}

// TestSystemHooks: with sunset on PATH, git commit runs sunset-check on the staged files and
// sunset-fix when Terraform is staged: a clean file commits, a deprecated one does not, the
// repository's .sunset.yaml applies, and a deprecated file already committed does not stop
// a commit of other files.
func TestSystemHooks(t *testing.T) {
	needTools(t)
	t.Parallel()
	env := gitEnv(t, t.TempDir())
	hooks, rev := hookRepo(t, env)
	c := committer{t, project(t, env, hooks, rev, "sunset-check-system", "sunset-fix-system"), env}
	must(t, c.dir, env, "pre-commit", "install")

	if out, ok := c.commit("rules.tf", sample(t, "rules.tf")); !ok {
		t.Fatalf("a clean Terraform file did not commit:\n%s", out)
	}
	out, ok := c.commit("infra/firewall.tf", sample(t, "firewall.tf"))
	if ok || !strings.Contains(out, "infra/firewall.tf:8:1: error firewall-rules") || !strings.Contains(out, "--- a/infra/firewall.tf") {
		t.Fatalf("a deprecated Terraform file: committed %v, want both hooks to stop it:\n%s", ok, out)
	}
	if !strings.Contains(out, "- hook id: sunset-check-system") || !strings.Contains(out, "- hook id: sunset-fix-system") {
		t.Fatalf("want both hooks failed:\n%s", out)
	}
	must(t, c.dir, env, "git", "reset", "-q", "--hard")

	out, ok = c.commit("deploy.sh", deployScript)
	if ok || !strings.Contains(out, "deploy.sh:2:") || !strings.Contains(out, "sunset fix --check") || strings.Contains(out, "- hook id: sunset-fix-system") {
		t.Fatalf("a deprecated script: committed %v, want sunset-check to stop it and sunset-fix skipped:\n%s", ok, out)
	}
	if out, ok := c.commit(".sunset.yaml", "rules:\n  disable: [firewall-rules]\n"); !ok {
		t.Fatalf("the script with its rule disabled in .sunset.yaml did not commit:\n%s", out)
	}
	must(t, c.dir, env, "git", "rm", "-q", ".sunset.yaml")
	if out, ok := c.commit("README.md", "# infra\n"); !ok {
		t.Fatalf("a clean file beside a committed deprecated script did not commit (only the staged files are checked):\n%s", out)
	}
}

// TestGolangHooks: sunset-check and sunset-fix as most repositories use them: pre-commit
// builds sunset with Go from the hooks' repository at its rev (go install ./...), then runs
// it. The build is the slow part; it happens once here.
func TestGolangHooks(t *testing.T) {
	needTools(t)
	if testing.Short() {
		t.Skip("-short: pre-commit's build of sunset is skipped")
	}
	t.Parallel()
	env := gitEnv(t, t.TempDir())
	hooks, rev := hookRepo(t, env)
	dir := project(t, env, hooks, rev, "sunset-check", "sunset-fix")
	write(t, dir, "rules.tf", sample(t, "rules.tf"))
	must(t, dir, env, "git", "add", "rules.tf")
	start := time.Now()
	if out, code := run(t, dir, env, "pre-commit", "run"); code != 0 {
		t.Fatalf("pre-commit run on a clean staged file: exit %d\n%s", code, out)
	}
	t.Logf("pre-commit built sunset and ran the hooks in %s", time.Since(start).Round(time.Second))
	write(t, dir, "infra/firewall.tf", sample(t, "firewall.tf"))
	must(t, dir, env, "git", "add", "infra/firewall.tf")
	out, code := run(t, dir, env, "pre-commit", "run")
	if code == 0 || !strings.Contains(out, "- hook id: sunset-check") || !strings.Contains(out, "- hook id: sunset-fix") ||
		!strings.Contains(out, "infra/firewall.tf:3:1: error filters") {
		t.Fatalf("pre-commit run on a deprecated staged file: exit %d, want both hooks failed\n%s", code, out)
	}
}
