package ci

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionFile is an action.yml as the runner reads a composite action's.
type actionFile struct {
	Name    string                 `yaml:"name"`
	Inputs  map[string]actionInput `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionInput struct {
	Description string `yaml:"description"`
	Default     string `yaml:"default"`
	Required    bool   `yaml:"required"`
}

// actionStep is a step of a composite action: a run step or a uses step.
type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	ContinueOnError  string            `yaml:"continue-on-error"`
}

func loadAction(t testing.TB, dir string) *actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

// usesFunc stands for a uses: step (another action): it gets the step's evaluated with:
// and returns the step's outputs, or an error for a failed step.
type usesFunc func(uses string, with map[string]string) (map[string]string, error)

// stepResult is what later steps see of a step: steps.ID.outputs, outcome, conclusion.
type stepResult struct {
	outputs             map[string]string
	outcome, conclusion string
}

// composite runs a composite action's steps as the runner does: inputs with their defaults,
// each step's if: (success() by default), its env: and with: evaluated, run: scripts under
// bash with GITHUB_OUTPUT, GITHUB_PATH and GITHUB_STEP_SUMMARY, step outputs for later
// steps, continue-on-error, and the action's outputs at the end.
type composite struct {
	t         *testing.T
	action    *actionFile
	dir       string            // GITHUB_ACTION_PATH
	workspace string            // GITHUB_WORKSPACE, where run steps start
	env       map[string]string // the job's environment (RUNNER_*, GITHUB_*, PATH, ...)
	github    map[string]any    // the github context
	uses      usesFunc
	inputs    map[string]any
	steps     map[string]any // the steps context
	failed    bool           // a step failed (without continue-on-error)
	ran       []string       // names of the steps that ran, in order
	stdout    strings.Builder
	log       strings.Builder // stdout and stderr of every run step
}

// run runs every step with the given inputs (with: of the calling workflow) and reports
// whether the action succeeded, and its outputs.
func (c *composite) run(with map[string]string) (bool, map[string]string) {
	c.t.Helper()
	c.inputs = map[string]any{}
	for name, in := range c.action.Inputs {
		v, ok := with[name]
		if !ok {
			v = c.interpolate(in.Default)
		}
		c.inputs[strings.ToLower(name)] = v
	}
	for name := range with {
		if _, ok := c.action.Inputs[name]; !ok {
			c.t.Fatalf("input %s: the action has no such input", name)
		}
	}
	c.steps = map[string]any{}
	for i, st := range c.action.Runs.Steps {
		c.step(i, st)
	}
	outputs := map[string]string{}
	for name, o := range c.action.Outputs {
		outputs[name] = c.interpolate(o.Value)
	}
	return !c.failed, outputs
}

// step runs one step when its condition holds.
func (c *composite) step(i int, st actionStep) {
	c.t.Helper()
	if !truthy(c.eval(condition(st.If))) {
		return
	}
	name := st.Name
	if name == "" {
		name = fmt.Sprintf("step %d", i+1)
	}
	c.ran = append(c.ran, name)
	var outputs map[string]string
	var err error
	if st.Uses != "" {
		with := map[string]string{}
		for k, v := range st.With {
			with[k] = c.interpolate(v)
		}
		outputs, err = c.uses(st.Uses, with)
	} else {
		outputs, err = c.runScript(st)
	}
	res := stepResult{outputs: outputs, outcome: "success", conclusion: "success"}
	if err != nil {
		res.outcome, res.conclusion = "failure", "failure"
		c.log.WriteString(name + ": " + err.Error() + "\n")
		if st.ContinueOnError != "" && truthy(c.eval(condition(st.ContinueOnError))) {
			res.conclusion = "success"
		} else {
			c.failed = true
		}
	}
	if st.ID != "" {
		outs := map[string]any{}
		for k, v := range res.outputs {
			outs[strings.ToLower(k)] = v
		}
		c.steps[strings.ToLower(st.ID)] = map[string]any{"outputs": outs, "outcome": res.outcome, "conclusion": res.conclusion}
	}
}

// runScript runs a run: step under bash as the runner does (bash --noprofile --norc -eo
// pipefail FILE) and returns what it wrote to GITHUB_OUTPUT; GITHUB_PATH additions go on
// PATH for the later steps.
func (c *composite) runScript(st actionStep) (map[string]string, error) {
	c.t.Helper()
	if st.Shell != "bash" {
		c.t.Fatalf("step %q: shell %q; these tests run bash steps", st.Name, st.Shell)
	}
	tmp := c.t.TempDir()
	script, output, path := filepath.Join(tmp, "step.sh"), filepath.Join(tmp, "output"), filepath.Join(tmp, "path")
	for _, f := range []string{output, path} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte(c.interpolate(st.Run)), 0o644); err != nil {
		c.t.Fatal(err)
	}
	env := map[string]string{"GITHUB_ACTION_PATH": c.dir, "GITHUB_OUTPUT": output, "GITHUB_PATH": path}
	for k, v := range c.env {
		env[k] = v
	}
	for k, v := range st.Env {
		env[k] = c.interpolate(v)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = c.workspace
	if st.WorkingDirectory != "" {
		cmd.Dir = filepath.Join(c.workspace, c.interpolate(st.WorkingDirectory))
	}
	cmd.Env = environ(env)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &c.log
	runErr := cmd.Run()
	c.stdout.Write(stdout.Bytes())
	c.log.Write(stdout.Bytes())
	outputs := readOutputs(c.t, output)
	for _, dir := range readLines(c.t, path) {
		c.env["PATH"] = dir + string(os.PathListSeparator) + c.env["PATH"]
	}
	return outputs, runErr
}

// environ turns env into KEY=VALUE entries, sorted (a deterministic order).
func environ(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// readOutputs reads a GITHUB_OUTPUT file: NAME=VALUE lines and NAME<<DELIMITER blocks.
func readOutputs(t testing.TB, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := readLines(t, path)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				value = append(value, lines[i])
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		if name, value, ok := strings.Cut(line, "="); ok {
			out[name] = value
		} else {
			t.Fatalf("%s: a line that is neither NAME=VALUE nor NAME<<DELIMITER: %q", path, line)
		}
	}
	return out
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// condition is an if: or continue-on-error: value as an expression: with or without
// ${{ }}, success() when empty.
func condition(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "success()"
	}
	if strings.HasPrefix(s, "${{") && strings.HasSuffix(s, "}}") {
		return strings.TrimSpace(s[3 : len(s)-2])
	}
	return s
}
