package fix

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
)

// What fix writes is configuration for the target provider, the references in it included:
// a new block copies its zone_id (and driven rules their data) from the old blocks, written
// for provider v4, and v5 reads some of those attributes under another name
// (data.cloudflare_zones.z.zones is v5's data.cloudflare_zones.z.result). So every reference
// in the text fix writes is checked against the target's schema (migrate/internal/tfschema)
// and one that names an attribute the target does not have is renamed as the provider's
// upgrade tool (tf-migrate) renames it in the rest of the configuration, and said so; one
// with no known counterpart is left as written, reported, with a comment above it. Text fix
// adds to a block it keeps in the block's own syntax (rules merged into a ruleset written for
// v4) is that block's, not the target's, and keeps its references.

// renamedInV5 are the attributes provider v5 reads under another name than v4 did, by type
// ("data." in front for a data source): tf-migrate's renames (data.cloudflare_zones zones,
// data.cloudflare_accounts accounts, cloudflare_zone zone), and, where v5 moved a v4 string
// into an object, the member that holds the same value (checked against each release's
// provider source: v4 sets a zone resource's plan to the plan's legacy id and a zone data
// source's to the plan's name).
var renamedInV5 = map[string]map[string]string{
	"data.cloudflare_zones":    {"zones": "result"},
	"data.cloudflare_accounts": {"accounts": "result"},
	"data.cloudflare_zone":     {"account_id": "account.id", "plan": "plan.name"},
	"cloudflare_zone":          {"zone": "name", "account_id": "account.id", "plan": "plan.legacy_id"},
}

// schemaVersions are the releases whose reduced schemas check what fix writes.
var schemaVersions = map[terraform.Provider]string{terraform.ProviderV5: "5.22.0", terraform.ProviderV4: "4.52.8"}

// targetSchemas loads each reduced schema once.
var targetSchemas = sync.OnceValue(func() map[terraform.Provider]*tfschema.Schema {
	out := map[terraform.Provider]*tfschema.Schema{}
	for p, v := range schemaVersions {
		s, err := tfschema.Load(v)
		if err != nil {
			panic(err) // embedded: a build without them is broken
		}
		out[p] = s
	}
	return out
})

// textRef is a reference found in text fix writes: what it reads, and the byte ranges of
// its path's names in the text.
type textRef struct {
	ref   tfschema.Reference
	names []hcl.Range
}

// textRefs lexes text (a fragment of configuration) and returns its references to provider
// types' attributes. Comments and quoted text are not references; interpolations are.
func textRefs(text string) []textRef {
	toks, _ := hclsyntax.LexConfig([]byte(text), "", hcl.InitialPos)
	var out []textRef
	for i := 0; i < len(toks); i++ {
		if toks[i].Type != hclsyntax.TokenIdent || (i > 0 && toks[i-1].Type == hclsyntax.TokenDot) {
			continue
		}
		var names []string
		var ranges []hcl.Range
		j := i
		names, ranges = append(names, string(toks[j].Bytes)), append(ranges, toks[j].Range)
		for j+1 < len(toks) {
			switch {
			case toks[j+1].Type == hclsyntax.TokenDot && j+2 < len(toks) && toks[j+2].Type == hclsyntax.TokenIdent:
				names, ranges = append(names, string(toks[j+2].Bytes)), append(ranges, toks[j+2].Range)
				j += 2
				continue
			case toks[j+1].Type == hclsyntax.TokenDot && j+2 < len(toks) && toks[j+2].Type == hclsyntax.TokenNumberLit:
				j += 2 // a legacy index: .0
				continue
			case toks[j+1].Type == hclsyntax.TokenOBrack:
				j = closingBracket(toks, j+1)
				continue
			}
			break
		}
		if r, ok := referenceOf(names); ok {
			out = append(out, textRef{ref: r, names: ranges[len(ranges)-len(r.Path):]})
		}
		i = j
	}
	return out
}

// closingBracket is the index of the bracket closing the one at open (the last token when
// it is not closed).
func closingBracket(toks hclsyntax.Tokens, open int) int {
	depth := 0
	for k := open; k < len(toks); k++ {
		switch toks[k].Type {
		case hclsyntax.TokenOBrack:
			depth++
		case hclsyntax.TokenCBrack:
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return len(toks) - 1
}

// referenceOf reads the names of a traversal as tfschema does.
func referenceOf(names []string) (tfschema.Reference, bool) {
	t := hcl.Traversal{hcl.TraverseRoot{Name: names[0]}}
	for _, n := range names[1:] {
		t = append(t, hcl.TraverseAttr{Name: n})
	}
	return tfschema.ParseReference(t)
}

// renameFor is the name the target reads name under (the path's name at index at), "" for
// none: v4's names into v5's, and back for a target of v4 where the rename is one name.
func renameFor(target terraform.Provider, r tfschema.Reference, at int) string {
	key := r.Type
	if r.Data {
		key = "data." + key
	}
	name := r.Path[at]
	if target == terraform.ProviderV5 {
		return renamedInV5[key][name]
	}
	for old, now := range renamedInV5[key] {
		if now == name && !strings.Contains(now, ".") {
			return old
		}
	}
	return ""
}

// targetText rewrites the references of text the target does not read as written; it
// returns the text, the renames made ("FROM -> TO") and the references left (with why).
func targetText(s *tfschema.Schema, target terraform.Provider, text string) (string, []string, []string) {
	var renames, left []string
	refs := textRefs(text)
	slices.Reverse(refs) // edit from the end: earlier offsets stay right
	for _, tr := range refs {
		at, err := s.CheckPath(tr.ref)
		if err == nil {
			continue
		}
		to := ""
		if at >= 0 {
			to = renameFor(target, tr.ref, at)
		}
		renamed := tr.ref
		if to != "" {
			renamed.Path = append(append(slices.Clone(tr.ref.Path[:at]), strings.Split(to, ".")...), tr.ref.Path[at+1:]...)
			if _, err2 := s.CheckPath(renamed); err2 != nil {
				to = ""
			}
		}
		if to == "" {
			left = append(left, fmt.Sprintf("%s (%v)", tr.ref, err))
			continue
		}
		rng := tr.names[at]
		text = text[:rng.Start.Byte] + to + text[rng.End.Byte:]
		from, now := tr.ref, tr.ref
		from.Path, now.Path = tr.ref.Path[:at+1], strings.Split(to, ".")
		renames = append(renames, from.String()+" -> "+now.String())
	}
	slices.Reverse(renames)
	slices.Reverse(left)
	return text, renames, left
}

// targetReferences points the references in every edit at what the target reads (see the
// top of this file), notes the renames in the rewrites of the file, and reports what it
// cannot rename.
func (f *fixer) targetReferences() {
	s := targetSchemas()[f.opts.Target]
	type report struct {
		file *File
		at   int
		what string
	}
	var reports []report
	for file := range f.edits {
		seen := map[string]bool{}
		for i, e := range f.edits[file] {
			if e.text == "" || f.keepsOwnSyntax(file, e) {
				continue
			}
			text, renames, left := targetText(s, f.opts.Target, e.text)
			f.edits[file][i].text = text
			for _, r := range renames {
				f.noteRename(file, text, r)
			}
			for _, l := range left {
				if !seen[l] {
					seen[l] = true
					reports = append(reports, report{file, e.start, l})
				}
			}
		}
	}
	for _, r := range reports { // they add edits: after the loop over them
		f.reportReference(r.file, r.at, r.what)
	}
}

// noteRename says in the rewrites whose block text (an edit of file) holds which reference
// it reads otherwise; text that adds to a block (rules merged into a ruleset) notes it in
// every rewrite of the file.
func (f *fixer) noteRename(file *File, text, rename string) {
	note := fmt.Sprintf("written for provider %s: %s (%s's name; the provider's tf-migrate renames the rest of the configuration's references alike)", f.opts.Target, rename, f.opts.Target)
	var in []int
	for i, rw := range f.res.Rewrites {
		if typ, name, ok := strings.Cut(rw.New, "."); ok && rw.File == file.Path && strings.Contains(text, fmt.Sprintf("%q %q", typ, name)) {
			in = append(in, i)
		}
	}
	if len(in) == 0 {
		for i, rw := range f.res.Rewrites {
			if rw.File == file.Path {
				in = append(in, i)
			}
		}
	}
	for _, i := range in {
		if rw := &f.res.Rewrites[i]; !slices.Contains(rw.Notes, note) {
			rw.Notes = append(rw.Notes, note)
		}
	}
}

// reportReference leaves a reference fix wrote and the target does not have, with a comment
// above the line where the text goes.
func (f *fixer) reportReference(file *File, at int, what string) {
	line := 1 + strings.Count(string(file.Src[:at]), "\n")
	msg := fmt.Sprintf("the rewritten configuration reads %s, which provider %s does not have under that name: point it at what the provider offers", what, f.opts.Target)
	f.res.Left = append(f.res.Left, Problem{Path: file.Path, Line: line, Message: msg})
	f.commentAbove(file, at, "sunset fix: "+msg+".")
}

// keepsOwnSyntax reports whether e adds to a block fix keeps in its own syntax, another
// provider's than the target's: a ruleset whose rules are written for the other provider,
// or a block of a type the target does not have (a v4 cloudflare_record without its SRV
// fields, left for the upgrade's tf-migrate with the rest of the configuration).
func (f *fixer) keepsOwnSyntax(file *File, e edit) bool {
	for _, m := range f.repo.Modules {
		for _, r := range m.Resources {
			rng := r.Block.Range()
			if r.File != file || e.end <= rng.Start.Byte || rng.End.Byte <= e.start {
				continue
			}
			switch {
			case r.Type == typeRuleset && rng.Start.Byte < e.start && e.end < rng.End.Byte:
				return entryPointSyntax(r) != f.opts.Target
			case !targetSchemas()[f.opts.Target].HasType(r.Type) &&
				(rng.Start.Byte < e.start && e.end < rng.End.Byte || strings.Contains(e.text, fmt.Sprintf("resource %q %q", r.Type, r.Name))):
				return true // an edit in the block, or the block rewritten whole, still of its own type
			}
		}
	}
	return false
}
