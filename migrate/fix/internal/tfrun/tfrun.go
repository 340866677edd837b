// Package tfrun runs the real Terraform with the real Cloudflare provider for opt-in tests:
// `terraform validate` on rewritten configurations, and `terraform plan`/`apply` against
// the API emulator served in-process.
//
// The tests that use it skip unless SUNSET_TERRAFORM names a directory laid out as:
//
//	$SUNSET_TERRAFORM/terraform     the Terraform binary (1.7 or later: `removed` blocks)
//	$SUNSET_TERRAFORM/terraformrc   a CLI config (TF_CLI_CONFIG_FILE) installing the provider
//
// (SUNSET_TERRAFORM may also name the binary itself; terraformrc is then looked for beside
// it.) The CLI config is what makes `terraform init` find registry.terraform.io/cloudflare/
// cloudflare without the registry, typically a filesystem mirror of provider builds:
//
//	disable_checkpoint = true
//	provider_installation {
//	  filesystem_mirror {
//	    path    = "/ABSOLUTE/PATH/mirror"
//	    include = ["registry.terraform.io/cloudflare/cloudflare"]
//	  }
//	}
//
// with each build at mirror/registry.terraform.io/cloudflare/cloudflare/VERSION/OS_ARCH/
// terraform-provider-cloudflare_vVERSION (cmd/sunset/help/development.md says how to build
// them). Configurations then pin the provider as users do (`version = "~> 4.52"`).
//
// A round trip, as the package's own test runs it:
//
//	tf := tfrun.Find(t)                                // skips without SUNSET_TERRAFORM
//	em := tfrun.Emulate(t, emulator.Options{Token: seed.DemoToken, Seed: snap})
//	env := append(em.Env(), "TF_VAR_zone_id="+zoneID)
//	dir := t.TempDir()
//	tfrun.UseConfig(t, dir, "testdata/before")        // the repository as it was
//	tf.Apply(t, dir, env)                              // state written, objects in em
//	tfrun.UseConfig(t, dir, rewritten)                 // the repository as fix left it
//	p := tf.Plan(t, dir, env)                          // p.Actions(addr), p.With("delete")
//
// Terraform runs with only the environment a test passes (plus PATH, HOME and TMPDIR), so
// credentials or TF_* variables of the machine never reach it.
package tfrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnvVar names the directory (or binary) of the Terraform the tests run.
const EnvVar = "SUNSET_TERRAFORM"

// timeout bounds one terraform command: a provider waiting on retries must fail the test,
// not hang it until go test's own timeout.
const timeout = 5 * time.Minute

// Terraform is a terraform binary with the CLI config that installs the provider.
type Terraform struct {
	// Bin is the terraform binary.
	Bin string
	// CLIConfig is the CLI config file given as TF_CLI_CONFIG_FILE.
	CLIConfig string
}

// Find returns the Terraform named by SUNSET_TERRAFORM, or skips t saying why it cannot.
func Find(t testing.TB) *Terraform {
	t.Helper()
	tf, why := locate(os.Getenv(EnvVar))
	if why != "" {
		t.Skipf("skipping the real Terraform test: %s (set %s to a directory holding terraform and terraformrc; see cmd/sunset/help/development.md)", why, EnvVar)
	}
	return tf
}

// locate resolves the value of SUNSET_TERRAFORM, returning why it is not usable.
func locate(val string) (*Terraform, string) {
	if val == "" {
		return nil, EnvVar + " is not set"
	}
	tf := &Terraform{Bin: filepath.Join(val, "terraform"), CLIConfig: filepath.Join(val, "terraformrc")}
	if fi, err := os.Stat(val); err != nil {
		return nil, EnvVar + "=" + val + ": " + err.Error()
	} else if !fi.IsDir() {
		tf = &Terraform{Bin: val, CLIConfig: filepath.Join(filepath.Dir(val), "terraformrc")}
	}
	if _, err := os.Stat(tf.CLIConfig); err != nil {
		return nil, EnvVar + "=" + val + ": no CLI config: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, tf.Bin, "version").CombinedOutput()
	if err != nil {
		return nil, EnvVar + "=" + val + ": " + tf.Bin + " version: " + strings.TrimSpace(err.Error()+" "+string(out))
	}
	return tf, ""
}

// Init runs `terraform init -upgrade` in dir (a scratch directory: it gets .terraform and
// the lock file). Validate, Plan and Apply call it when dir has not been initialised; call
// it again after changing the provider's version (PinProvider), which -upgrade lets replace
// the version the lock file holds.
func (tf *Terraform) Init(t testing.TB, dir string) {
	t.Helper()
	tf.Run(t, dir, nil, "init", "-input=false", "-no-color", "-upgrade")
}

// Validate initialises dir when needed and fails t unless `terraform validate` accepts it.
func (tf *Terraform) Validate(t testing.TB, dir string) {
	t.Helper()
	tf.initOnce(t, dir)
	tf.Run(t, dir, nil, "validate", "-no-color")
}

// Apply initialises dir when needed and runs `terraform apply -auto-approve` with env (the
// provider's environment, e.g. Emulator.Env); the state stays in dir for the next run.
func (tf *Terraform) Apply(t testing.TB, dir string, env []string) string {
	t.Helper()
	tf.initOnce(t, dir)
	return tf.Run(t, dir, env, "apply", "-input=false", "-no-color", "-auto-approve")
}

// initOnce runs Init unless dir already has its .terraform directory.
func (tf *Terraform) initOnce(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".terraform")); err != nil {
		tf.Init(t, dir)
	}
}

// Run runs terraform with args in dir and returns its standard output, failing t (with
// both outputs) when it exits non-zero.
func (tf *Terraform) Run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	stdout, err := tf.run(dir, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return stdout
}

// ValidateErr initialises dir when needed and returns the failure of `terraform validate`
// (with its diagnostics), nil when the configuration is valid: a test of a configuration
// the provider must refuse.
func (tf *Terraform) ValidateErr(t testing.TB, dir string) error {
	t.Helper()
	tf.initOnce(t, dir)
	_, err := tf.run(dir, nil, "validate", "-no-color")
	return err
}

// run runs terraform with args in dir; its error carries both outputs.
func (tf *Terraform) run(dir string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tf.Bin, args...)
	cmd.Dir = dir
	cmd.Env = tf.environ(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("terraform %s in %s: %w\n--- stdout\n%s\n--- stderr\n%s", strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// environ is the whole environment of a terraform run: the machine's PATH and HOME, the CLI
// config, no prompts, no telemetry, then env.
func (tf *Terraform) environ(env []string) []string {
	out := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"TF_CLI_CONFIG_FILE=" + tf.CLIConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		out = append(out, "TMPDIR="+tmp) // where the provider's plugin socket goes
	}
	return append(out, env...)
}

// UseConfig makes dst's configuration that of src: it removes dst's *.tf files and copies
// src's, keeping dst's state, lock file and .terraform. A round trip applies one
// configuration, then plans the rewritten one in the same directory.
func UseConfig(t testing.TB, dst, src string) {
	t.Helper()
	old, err := filepath.Glob(filepath.Join(dst, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.tf file in %s", src)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// PinProvider pins the configuration in dir to provider version (e.g. "4.52.8", one of the
// builds the CLI config installs) with an override file, whether or not the configuration
// declares the provider itself. Only the root module is pinned: a child module must declare
// cloudflare/cloudflare in its own required_providers, as Terraform requires anyway.
func PinProvider(t testing.TB, dir, version string) {
	t.Helper()
	pin := `# Written by the test: the provider build it runs.
terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "` + version + `"
    }
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "sunset_provider_override.tf"), []byte(pin), 0o600); err != nil {
		t.Fatal(err)
	}
}
