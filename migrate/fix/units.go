package fix

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// What Write writes together: a root module's state holds what its configuration declares,
// and that configuration is the root module's files and those of every module it calls. If
// fix wrote some of them and not others, a state step would make Terraform forget resources
// the configuration still declares (the next apply creates them again), or a removed block
// would stand beside the resource it removes. So the unit is a root module with the modules
// it calls, joined with every other root module that calls one of those: a shared module's
// files change both roots' configurations.

// units is what Write needs to know of a run's modules.
type units struct {
	// of is the unit of each module directory: the root modules of the unit, joined.
	of map[string]string
	// steps is the unit each state step is for; a step not in it is for every unit.
	steps map[string]string
}

// unitFiles is one unit's files, in path order.
type unitFiles struct {
	name  string
	files []FileChange
}

// writeUnits groups the result's files by unit, units in name order.
func (r *Result) writeUnits() []unitFiles {
	byName := map[string][]FileChange{}
	for _, f := range r.Files {
		dir := path.Dir(f.Path)
		name, ok := r.units.of[dir]
		if !ok {
			name = dir
		}
		byName[name] = append(byName[name], f)
	}
	out := make([]unitFiles, 0, len(byName))
	for name, fs := range byName {
		out = append(out, unitFiles{name: name, files: fs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// withholdSteps drops the state steps of the units not written; when none was written, the
// steps for every unit go too.
func (r *Result) withholdSteps(failed []string) {
	if len(failed) == 0 {
		return
	}
	allFailed := len(failed) == len(r.writeUnits())
	var kept []string
	for _, s := range r.StateSteps {
		u, own := r.units.steps[s]
		if (own && slices.Contains(failed, u)) || (!own && allFailed) {
			continue
		}
		kept = append(kept, s)
	}
	r.StateSteps = kept
}

// describeUnit names a unit for people.
func describeUnit(name string) string {
	if strings.Contains(name, ", ") {
		return "root modules " + name
	}
	return "root module " + name
}

// step adds a state step for the unit of module m (nil: for every unit).
func (f *fixer) step(m *Module, text string) {
	f.res.StateSteps = append(f.res.StateSteps, text)
	if m == nil {
		return
	}
	if f.res.units.steps == nil {
		f.res.units.steps = map[string]string{}
	}
	f.res.units.steps[text] = f.unitOf(m)
}

// unitOf is the unit of module m.
func (f *fixer) unitOf(m *Module) string {
	if f.res.units.of == nil {
		f.res.units.of = moduleUnits(f.repo)
	}
	return f.res.units.of[m.Dir]
}

// moduleUnits is the unit of every module of the repository: the root modules that reach it
// (a module no root reaches, in a call cycle, is a unit of its own), joined across shared
// modules.
func moduleUnits(repo *Repo) map[string]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			parent[x] = find(p)
			return parent[x]
		}
		parent[x] = x
		return x
	}
	reach := map[string][]string{} // module dir -> root dirs reaching it
	for _, root := range repo.Modules {
		if !root.Root() {
			continue
		}
		for _, m := range repo.Modules {
			if len(modulePaths(root, m)) > 0 {
				reach[m.Dir] = append(reach[m.Dir], root.Dir)
			}
		}
	}
	for _, m := range repo.Modules {
		rs := reach[m.Dir]
		if len(rs) == 0 {
			rs = []string{m.Dir}
		}
		for _, r := range rs[1:] {
			parent[find(r)] = find(rs[0])
		}
		find(rs[0])
	}
	members := map[string][]string{}
	for x := range parent {
		members[find(x)] = append(members[find(x)], x)
	}
	out := map[string]string{}
	for _, m := range repo.Modules {
		rs := reach[m.Dir]
		if len(rs) == 0 {
			rs = []string{m.Dir}
		}
		ms := members[find(rs[0])]
		sort.Strings(ms)
		out[m.Dir] = strings.Join(ms, ", ")
	}
	return out
}
