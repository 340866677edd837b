// Package terraform renders a migration plan as Terraform configuration for the Cloudflare
// provider v5, written with hclwrite (so it parses with hcl/v2 and is `terraform fmt` clean).
// The configuration is the second way to carry out a plan, beside the API steps of plan.md;
// the two name each other and a plan is carried out one way, never both (README.md).
//
//   - versions.tf: provider >= 5.19.0, < 6 (MinProviderVersion says why) and Terraform >= 1.5
//     (import blocks);
//   - one file per zone: a cloudflare_ruleset per entry point the plan writes (custom rules,
//     rate limiting rules, managed rules, redirect rules) holding every rule after the
//     migration, with an import {} block when the entry point exists; the
//     cloudflare_zone_dns_settings the plan sets (no import: the provider cannot import it,
//     declaring it adopts the settings);
//   - accounts.tf: cloudflare_account_dns_settings (adopted like the zone's), and a
//     cloudflare_notification_policy or cloudflare_zero_trust_access_application (type
//     bookmark) for every step that creates one through the API;
//   - v4-state-cleanup/: removed {} blocks (destroy = false) and the equivalent
//     `terraform state rm` commands for the old resources, to run while the configuration is
//     still on provider v4: v5 rejects the v4 state of cloudflare_firewall_rule and
//     cloudflare_rate_limit, so a v5 configuration never names them;
//   - README.md: the order (drop the old resources from state on v4, upgrade, apply), what
//     the output is valid against, and which plan.md steps the configuration replaces.
//
// Decisions: rules are written as the API's JSON (v5 attribute names are the wire names),
// without the members the service computes (id, version, last_updated). Old resources are
// addressed the way cf-terraforming names them (terraform_managed_resource_<id>); a
// configuration that names them otherwise renames the addresses. The old objects themselves
// are deleted by plan.md's API steps on both ways: provider v5 has no resources for WAF
// overrides, and the removed blocks only make Terraform forget the others.
package terraform

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Files renders the plan: file name (slash-separated, relative to the terraform directory)
// -> content, in a map the caller writes. A plan with nothing for Terraform yields
// versions.tf and README.md alone.
func Files(p *migrate.Plan) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := generate(p, WholePlan(p), false, func(name string, write func(io.Writer) error) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		out[name] = b.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Zones hands a plan's zones to fn one at a time, in plan order: a whole plan's (WholePlan)
// or a spilled one's (migrate.Spill.Zones). fn does not keep the zone.
type Zones func(fn func(*migrate.ZonePlan) error) error

// WholePlan is the Zones of a plan held whole.
func WholePlan(p *migrate.Plan) Zones {
	return func(fn func(*migrate.ZonePlan) error) error {
		for i := range p.Zones {
			if err := fn(&p.Zones[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// generate renders the files of the plan whose accounts, summary and verification head holds
// and whose zones come from zones, handing each file to emit as a function that writes it:
// a zone's file is rendered when the zone comes, and the zone is not kept. The cleanup files
// and README.md list every old object of the account: their per-zone parts are kept in
// temporary files when onDisk (removed on every path), in memory otherwise.
func generate(head *migrate.Plan, zones Zones, onDisk bool, emit func(name string, write func(io.Writer) error) error) (err error) {
	g := &gen{names: newNamer(), writesAt: map[string]bool{}}
	g.replaced.onDisk = onDisk
	cleanup := newCleanupSet(onDisk)
	defer func() {
		if rerr := errors.Join(g.replaced.remove(), cleanup.remove()); err == nil {
			err = rerr
		}
	}()
	taken := map[string]bool{}
	out := func(name string, write func(io.Writer) error) error {
		taken[name] = true
		return emit(name, write)
	}
	if err := out("versions.tf", writeBytes(versionsFile())); err != nil {
		return err
	}
	for _, a := range head.Accounts {
		g.noteWrites(a.Steps)
	}
	acc, err := g.accountsFile(head)
	if err != nil {
		return err
	}
	if acc != nil {
		if err := out("accounts.tf", writeBytes(acc)); err != nil {
			return err
		}
	}
	err = zones(func(z *migrate.ZonePlan) error {
		g.noteWrites(z.Steps)
		if err := cleanup.add(z); err != nil {
			return err
		}
		f, err := g.zoneFile(z)
		switch {
		case err != nil:
			return err
		case g.err != nil:
			return g.err
		case f == nil:
			return nil
		}
		return out(fileName(z.ZoneName, z.ZoneID, taken), writeBytes(f))
	})
	if err == nil {
		err = errors.Join(cleanup.end(), g.err)
	}
	if err != nil {
		return err
	}
	if cleanup.blocks > 0 {
		if err := out(CleanupDir+"/removed.tf", cleanup.writeRemoved); err != nil {
			return err
		}
	}
	if cleanup.blocks+cleanup.gone > 0 {
		if err := out(CleanupDir+"/state-rm.sh", cleanup.writeStateRm); err != nil {
			return err
		}
	}
	return out("README.md", func(w io.Writer) error { return g.readme(w, cleanup) })
}

// writeBytes is the emit function of a file rendered whole.
func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// gen carries what the files share while they are rendered: unique resource names and the
// plan steps the configuration replaces, for README.md.
type gen struct {
	names *namer
	// replaced is README.md's table of the plan.md steps the configuration replaces, a row
	// written as each resource is declared (gen.replace); nReplaced counts the rows and scope
	// is the scope of the last.
	replaced  spool
	nReplaced int
	scope     string
	err       error // the first failed write to replaced
	// writesAt are the apiOnly path fragments some step of the plan writes to.
	writesAt map[string]bool
}

// noteWrites records which apiOnly paths the steps write to, for README.md.
func (g *gen) noteWrites(steps []migrate.Step) {
	for _, a := range apiOnly {
		for _, st := range steps {
			if writes(st) && strings.Contains(st.Path, a.fragment) {
				g.writesAt[a.fragment] = true
				break
			}
		}
	}
}

// generatedMark starts every file Files writes; Write deletes stale files that carry it.
const generatedMark = "# Generated by sunset plan."

// maxGenerated bounds the files removeStale reads to tell whether it generated them.
const maxGenerated = 64 << 20

// Write renders the plan into dir (created if missing), one file per entry of Files. Files
// an earlier run generated that this plan no longer has are deleted (they would declare
// stale resources); other files in dir are left alone.
func Write(dir string, p *migrate.Plan) error {
	return WriteZones(dir, p, WholePlan(p))
}

// WriteZones is Write for a plan whose zones come one at a time (head holds the rest, as
// migrate.Spill.Finish gives it): each zone's file is written as the zone comes, and the
// zones' parts of the cleanup files and README.md go to temporary files (removed before it
// returns) until those are written, so memory holds one zone's configuration rather than
// the whole plan's or its old objects.
func WriteZones(dir string, head *migrate.Plan, zones Zones) error {
	// Stale files are removed through dir and its cleanup folder: neither may be a link, or
	// generated-looking files elsewhere would go.
	if err := safefile.MkdirNoFollow(dir); err != nil {
		return err
	}
	if err := safefile.NotLink(filepath.Join(dir, CleanupDir)); err != nil {
		return err
	}
	written := map[string]bool{}
	err := generate(head, zones, true, func(n string, write func(io.Writer) error) error {
		written[n] = true
		// dir may be in a checked-out tree: neither it, its cleanup folder nor a file is
		// written through a symbolic link (safefile refuses them by name).
		path := filepath.Join(dir, filepath.FromSlash(n))
		if err := safefile.MkdirNoFollow(filepath.Dir(path)); err != nil {
			return err
		}
		return writeFile(path, write)
	})
	if err != nil {
		return err
	}
	return removeStale(dir, written)
}

// writeFile streams a file to path through safefile.Create (no symbolic link at path).
func writeFile(path string, write func(io.Writer) error) error {
	f, err := safefile.Create(path)
	if err != nil {
		return err
	}
	// A safefile refusal names path already; a failure after the open gets it here.
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// removeStale deletes the generated files of dir (and of its cleanup folder) that files does
// not hold. A file is generated when it starts with generatedMark (after a #! line).
func removeStale(dir string, files map[string]bool) error {
	var old []string
	for _, pattern := range []string{"*.tf", "README.md", CleanupDir + "/*"} {
		m, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		if err != nil {
			return err
		}
		old = append(old, m...)
	}
	for _, path := range old {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if files[filepath.ToSlash(rel)] {
			continue
		}
		// Only a generated file is removed, and generated files are small regular ones: a
		// link, a FIFO or a large file is left alone (and never read through).
		data, err := safefile.ReadFileNoFollow(path, maxGenerated)
		if err != nil {
			continue
		}
		if bytes.HasPrefix(skipShebang(data), []byte(generatedMark)) || bytes.HasPrefix(data, []byte(readmeMark)) {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

func skipShebang(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("#!")) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return data[i+1:]
		}
	}
	return data
}

// listTokens writes a list with one element per line ("[\n  {...},\n]"), the layout people
// write by hand, rather than hclwrite's "[{...}, {...}]".
func listTokens(vals []cty.Value) hclwrite.Tokens {
	if len(vals) == 0 {
		return hclwrite.TokensForValue(cty.EmptyTupleVal)
	}
	toks := hclwrite.Tokens{
		{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")},
		{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")},
	}
	for _, v := range vals {
		toks = append(toks, hclwrite.TokensForValue(v)...)
		toks = append(toks,
			&hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")},
			&hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
}

// traversal is the address TYPE.NAME as an HCL reference.
func traversal(typ, name string) hcl.Traversal {
	return hcl.Traversal{hcl.TraverseRoot{Name: typ}, hcl.TraverseAttr{Name: name}}
}

func importBlock(body *hclwrite.Body, typ, name, id string) {
	ib := body.AppendNewBlock("import", nil).Body()
	ib.SetAttributeTraversal("to", traversal(typ, name))
	ib.SetAttributeValue("id", cty.StringVal(id))
	body.AppendNewline()
}

func header(text string) []byte {
	return []byte(generatedMark + " " + oneLine(text) + "\n\n")
}

// comment is a "# ..." line as tokens.
func comment(text string) hclwrite.Tokens {
	return hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + oneLine(text) + "\n")}}
}

// oneLine makes text from the plan (zone names, step titles, ids) safe in a "#" comment line
// of a .tf file or of state-rm.sh and in README.md: textsafe.Sanitize, so no line break can end
// the comment (in state-rm.sh, the next line would run as a command) and no escape sequence
// or control character reaches a terminal that shows the file.
func oneLine(s string) string { return textsafe.Sanitize(s) }

// finish prepends the header to the file's text. f.Bytes() is already what terraform fmt
// (hclwrite.Format) leaves, as the tests hold for every file generated: formatting it again
// would lex the file into a second set of tokens, 5-7 MB for a zone of thousands of rules
// and the peak of a 5,000-zone scan --plan-dir (BenchmarkScanPlanPeakRSS).
func finish(head []byte, f *hclwrite.File) []byte {
	var b bytes.Buffer
	b.Write(head)
	b.Write(bytes.TrimRight(f.Bytes(), "\n"))
	b.WriteString("\n")
	return b.Bytes()
}

// fileName is zone_<name>.tf, made unique with the zone id when two names sanitise alike.
func fileName(zoneName, zoneID string, taken map[string]bool) string {
	n := "zone_" + sanitize(zoneName) + ".tf"
	if taken[n] {
		n = "zone_" + sanitize(zoneName) + "_" + sanitize(zoneID) + ".tf"
	}
	return n
}

// sanitize makes a Terraform identifier: lowercase letters, digits, _ and -, starting with a
// letter or _.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || (out[0] >= '0' && out[0] <= '9') || out[0] == '-' {
		out = "_" + out
	}
	return out
}

// namer hands out unique resource names.
type namer struct{ used map[string]int }

func newNamer() *namer { return &namer{used: map[string]int{}} }

func (n *namer) name(s string) string {
	base := sanitize(s)
	n.used[base]++
	if k := n.used[base]; k > 1 {
		return fmt.Sprintf("%s_%d", base, k)
	}
	return base
}
