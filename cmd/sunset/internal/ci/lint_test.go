package ci

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"gopkg.in/yaml.v3"
)

// localAction is how a workflow in this repository names the action; remoteAction is how
// the documentation names it.
const (
	localAction  = "./.github/actions/sunset"
	remoteAction = "sunsetscan/sunset/.github/actions/sunset@v1"
)

// lintWorkflow lints a workflow with actionlint in a project that holds the action at
// .github/actions/sunset (so that actionlint checks the inputs given to it against
// action.yml), shellcheck on its scripts when shellcheck is installed.
func lintWorkflow(t *testing.T, action, workflow []byte) []string {
	t.Helper()
	proj := t.TempDir()
	dir := filepath.Join(proj, ".github", "actions", "sunset")
	wfDir := filepath.Join(proj, ".github", "workflows")
	for _, d := range []string{dir, wfDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wfDir, "sunset.yml")
	if err := os.WriteFile(path, workflow, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &actionlint.LinterOptions{WorkingDir: proj}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	l, err := actionlint.NewLinter(io.Discard, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := actionlint.NewProject(proj)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(path, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestWorkflowUsingActionLints: actionlint finds nothing wrong in a workflow that uses the
// action, nor in the GitHub recipes of the README and the help topics (with the action
// taken from this repository); an input the action does not have is an error.
func TestWorkflowUsingActionLints(t *testing.T) {
	t.Parallel()
	action := readFile(t, filepath.Join(actionDir(t), "action.yml"))
	workflows := map[string][]byte{"testdata/ci/workflow.yml": readFile(t, filepath.Join(root(t), "testdata", "ci", "workflow.yml"))}
	for name, block := range recipes(t) {
		if strings.Contains(block, remoteAction) {
			workflows[name] = []byte(strings.ReplaceAll(block, remoteAction, localAction))
		}
	}
	if len(workflows) < 3 {
		t.Fatalf("workflows %d: want the sample, the README's recipe and the help topic's", len(workflows))
	}
	for name, wf := range workflows {
		if !strings.Contains(string(wf), localAction) {
			t.Errorf("%s does not use the action", name)
		}
		if errs := lintWorkflow(t, action, wf); len(errs) > 0 {
			t.Errorf("%s:\n%s", name, strings.Join(errs, "\n"))
		}
	}
	bad := strings.Replace(string(workflows["testdata/ci/workflow.yml"]), "fail-on:", "fail_on:", 1)
	if errs := lintWorkflow(t, action, []byte(bad)); !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, `"fail_on" is not defined`) }) {
		t.Errorf("an input the action does not have: actionlint says %q", errs)
	}
}

// compositeKeys are the keys a composite action's run and uses steps may have (the runner's
// action_yaml.json schema).
var compositeKeys = map[string][]string{
	"run":  {"name", "id", "if", "run", "env", "continue-on-error", "working-directory", "shell"},
	"uses": {"name", "id", "if", "uses", "continue-on-error", "with", "env"},
}

// stepsWorkflow is a workflow whose job runs the action's steps, its inputs declared as the
// workflow's: actionlint then checks the steps as it checks a workflow's (expressions,
// contexts, step ids, the inputs of known actions, shellcheck on run: scripts), which it
// does not do for an action.yml.
func stepsWorkflow(t *testing.T, action []byte) []byte {
	t.Helper()
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(action, &a); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]any{}
	for name := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": false}
	}
	for _, st := range a.Runs.Steps {
		kind := "run"
		if _, ok := st["uses"]; ok {
			kind = "uses"
		}
		for k := range st {
			if !slices.Contains(compositeKeys[kind], k) {
				t.Errorf("step %v: key %s is not one a composite %s step takes", st["name"], k, kind)
			}
		}
		if _, ok := st["shell"]; kind == "run" && !ok {
			t.Errorf("step %v: a composite run step needs shell", st["name"])
		}
	}
	wf, err := yaml.Marshal(map[string]any{
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": a.Runs.Steps}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

// TestActionStepsLint: the action's own steps pass actionlint (read as a workflow's steps,
// see stepsWorkflow), and a misspelt input in them is caught; every input is used, every
// output reads a step that exists, every script the steps run is there and passes
// shellcheck.
func TestActionStepsLint(t *testing.T) {
	t.Parallel()
	action := readFile(t, filepath.Join(actionDir(t), "action.yml"))
	if errs := lintWorkflow(t, action, stepsWorkflow(t, action)); len(errs) > 0 {
		t.Errorf("the action's steps:\n%s", strings.Join(errs, "\n"))
	}
	typo := []byte(strings.Replace(string(action), "inputs.fail-on", "inputs.fail_on", 1))
	if errs := lintWorkflow(t, typo, stepsWorkflow(t, typo)); len(errs) == 0 {
		t.Error("a step reading an input the action does not have: actionlint says nothing")
	}
	a := loadAction(t, actionDir(t))
	var steps strings.Builder
	ids := map[string]bool{}
	for _, st := range a.Runs.Steps {
		out, _ := yaml.Marshal(st)
		steps.Write(out)
		ids[st.ID] = true
	}
	for name := range a.Inputs {
		if !strings.Contains(steps.String(), "inputs."+name+" ") && !strings.Contains(steps.String(), "inputs."+name+"\n") {
			t.Errorf("input %s: no step reads it", name)
		}
	}
	for name, o := range a.Outputs {
		m := regexp.MustCompile(`steps\.([\w-]+)\.outputs`).FindStringSubmatch(o.Value)
		if m == nil || !ids[m[1]] {
			t.Errorf("output %s = %q: not a step's output", name, o.Value)
		}
	}
	scripts := regexp.MustCompile(`\$GITHUB_ACTION_PATH/([\w.-]+)`).FindAllStringSubmatch(steps.String(), -1)
	if len(scripts) == 0 {
		t.Fatal("the steps run no script of the action")
	}
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck is not installed (.ci/run installs it): the scripts are not checked")
	}
	for _, m := range scripts {
		if out, err := exec.Command(sc, filepath.Join(actionDir(t), m[1])).CombinedOutput(); err != nil {
			t.Errorf("shellcheck %s: %v\n%s", m[1], err, out)
		}
	}
}
