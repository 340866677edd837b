package fix

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/fix/internal/tfrun"
	"github.com/sunsetscan/sunset/migrate/terraform"
)

// fakeTerraform is a terraform for the clean-up script: `state list` prints $FAKE_STATE
// (or, when $FAKE_LIST_ERROR is set, prints it on stderr and fails), `state rm ADDR`
// records ADDR in $FAKE_LOG (and fails for $FAKE_RM_FAILS).
const fakeTerraform = `#!/bin/sh
case "$1 $2" in
"state list")
	if [ -n "${FAKE_LIST_ERROR:-}" ]; then
		printf '%s\n' "$FAKE_LIST_ERROR" >&2
		exit 1
	fi
	printf '%s' "$FAKE_STATE"
	;;
"state rm")
	if [ "$3" = "${FAKE_RM_FAILS:-}" ]; then
		echo "Error: state locked" >&2
		exit 1
	fi
	echo "$3" >>"$FAKE_LOG"
	echo "Removed $3"
	;;
*)
	exit 2
	;;
esac
`

// cleanupScriptOf fixes pairModule for v5 in a temporary directory and returns the
// directory; the clean-up script is written there.
func cleanupScriptOf(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the clean-up script is a POSIX shell script")
	}
	dir := t.TempDir()
	writeTree(t, dir, pairModule)
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runScript runs the clean-up script in dir with the fake terraform first on PATH and env;
// it returns the exit code, both outputs and the addresses state rm was given.
func runScript(t *testing.T, dir string, env ...string) (int, string, []string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "terraform"), []byte(fakeTerraform), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "rm.log")
	cmd := exec.Command("sh", StateCleanupScript)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_LOG="+log)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	return code, out.String(), strings.Fields(string(data))
}

// TestCleanupScriptWithoutState: where nothing was applied yet (no state), the clean-up
// script says there is nothing to forget and exits 0; with a state it forgets the addresses
// the state holds (every instance) and skips the others; a state it cannot read, or a state
// rm that fails, exits 1 with Terraform's error.
func TestCleanupScriptWithoutState(t *testing.T) {
	dir := cleanupScriptOf(t)
	t.Run("no state", func(t *testing.T) {
		code, out, rm := runScript(t, dir, "FAKE_LIST_ERROR=No state file was found!")
		if code != 0 || !strings.Contains(out, "No Terraform state here yet: nothing to forget") || len(rm) > 0 {
			t.Errorf("exit %d, state rm %q:\n%s", code, rm, out)
		}
	})
	t.Run("state", func(t *testing.T) {
		code, out, rm := runScript(t, dir, "FAKE_STATE=cloudflare_firewall_rule.bots[0]\ncloudflare_ruleset.custom_rules\n")
		if code != 0 || strings.Join(rm, " ") != "cloudflare_firewall_rule.bots" || !strings.Contains(out, "cloudflare_filter.bots: not in the state") {
			t.Errorf("exit %d, state rm %q:\n%s", code, rm, out)
		}
	})
	t.Run("backend not initialised", func(t *testing.T) {
		code, out, rm := runScript(t, dir, "FAKE_LIST_ERROR=Error: Backend initialization required")
		if code != 1 || !strings.Contains(out, "Backend initialization required") || len(rm) > 0 {
			t.Errorf("exit %d, state rm %q:\n%s", code, rm, out)
		}
	})
	t.Run("state rm fails", func(t *testing.T) {
		code, out, _ := runScript(t, dir, "FAKE_STATE=cloudflare_filter.bots\ncloudflare_firewall_rule.bots\n", "FAKE_RM_FAILS=cloudflare_filter.bots")
		if code != 1 || !strings.Contains(out, "state locked") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}

// TestCleanupScriptWithoutStateOnTerraform: the same with the real Terraform, in a
// directory where nothing was applied.
func TestCleanupScriptWithoutStateOnTerraform(t *testing.T) {
	tf := tfrun.Find(t)
	dir := cleanupScriptOf(t)
	cmd := exec.Command("sh", StateCleanupScript)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(tf.Bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "TF_CLI_CONFIG_FILE="+tf.CLIConfig)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nothing to forget") {
		t.Errorf("%v:\n%s", err, out)
	}
}
