package cli

import (
	"fmt"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// Flag categories: the groups the commands compose (options.go) as urfave/cli shows them, a
// heading each in a command's help, in the order the command lists its groups. A group sets
// its flags' category; a command whose forms take the groups differently (apply and verify:
// a plan directory or not) says under which form each applies (regroup).
const (
	catSelection = "Accounts and zones"
	catAPI       = "API: where to send, with which credentials, how fast"
	catSnapshot  = "Snapshot"
	catOutput    = "Output and gate"
	catJudging   = "Judging: the date and the catalog"
	catPlan      = "Plan"
	catRescan    = "Resuming, rescanning, pricing"
)

// apiFlagNames are the flags of the catAPI part of sourceFlags.
var apiFlagNames = []string{"api-url", "api-token-file", "api-email", "api-key-file", "workers", "rps", "retries"}

// inCategory sets the category of each of flags (every kind of flag the commands use) and
// returns them.
func inCategory(category string, flags ...ucli.Flag) []ucli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *ucli.StringFlag:
			f.Category = category
		case *ucli.StringSliceFlag:
			f.Category = category
		case *ucli.BoolFlag:
			f.Category = category
		case *ucli.IntFlag:
			f.Category = category
		case *ucli.Float64Flag:
			f.Category = category
		default:
			panic(fmt.Sprintf("inCategory: a flag of type %T", f)) // a new kind of flag: add it here
		}
	}
	return flags
}

// flagGroup is a category of a command's help and the names of the flags in it.
type flagGroup struct {
	category string
	names    []string
}

// regroup puts flags in the groups given, in their order and each group's flags in the order
// it names them; a flag no group names keeps its category and follows. A name no flag has is
// a mistake of the command's definition (the help tests build every command).
func regroup(flags []ucli.Flag, groups ...flagGroup) []ucli.Flag {
	byName := map[string]ucli.Flag{}
	for _, f := range flags {
		byName[f.Names()[0]] = f
	}
	var out []ucli.Flag
	for _, g := range groups {
		for _, name := range g.names {
			f, ok := byName[name]
			if !ok {
				panic("regroup: no flag --" + name)
			}
			out = append(out, inCategory(g.category, f)...)
			delete(byName, name)
		}
	}
	for _, f := range flags {
		if _, left := byName[f.Names()[0]]; left {
			out = append(out, f)
		}
	}
	return slices.Clip(out)
}

// flagsTemplate is the OPTIONS section of a command's help: its visible flags in the order
// the command lists them, under a heading where the category changes (urfave/cli's own
// template sorts categories and flags by name, which puts --help first and --yes last). A
// flag without category (--help) comes after a blank line.
const flagsTemplate = `{{if .VisibleFlags}}

OPTIONS:{{$cat := "\x00"}}{{range .VisibleFlags}}{{if ne .GetCategory $cat}}{{if ne $cat "\x00"}}
{{end}}{{$cat = .GetCategory}}{{with $cat}}
   {{.}}:{{end}}{{end}}
   {{.}}{{end}}{{end}}
`

// commandHelpTemplate is urfave/cli's help of a command with flagsTemplate for its OPTIONS.
func commandHelpTemplate() string {
	tmpl := ucli.CommandHelpTemplate
	i := strings.Index(tmpl, "{{if .VisibleFlagCategories}}")
	if i < 0 {
		panic("urfave/cli's CommandHelpTemplate has no OPTIONS section where it was")
	}
	return tmpl[:i] + flagsTemplate
}
