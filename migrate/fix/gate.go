package fix

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// `sunset fix --check` is a CI gate: it fails while there is something to rewrite, or while
// `sunset check` reports, in Terraform, a usage fix handles that no `# sunset fix:` comment
// explains. A usage fix leaves gets such a comment above it (what to decide); once every
// leftover has one, the gate passes, and a reviewer reads the reasons in the files.

// Handled are the check rules whose Terraform usages fix rewrites, or leaves with a
// `# sunset fix:` comment saying why.
var Handled = []vocab.RuleID{vocab.FirewallRules, vocab.Filters, vocab.GeoIPFieldNames,
	vocab.RateLimitingV1, vocab.WAFManagedRulesV1, vocab.ZoneSettingBrotli, vocab.ZoneSettingMinify,
	vocab.ZoneSettingMobileRedirect, vocab.ZoneSettingServerSideExclude, vocab.ZoneSettingPrivacyPass,
	vocab.CNAMEFlatteningSetting, vocab.SRVDataFields, vocab.NotificationEmail, vocab.ArgoTunnelsAPI,
	vocab.AccessBookmarksAPI, vocab.ZoneSettingsBulk}

// commentMark starts every comment fix writes above what it leaves.
const commentMark = "# sunset fix:"

// Unexplained are the findings --check fails on besides a change to make, as the Terraform
// under paths will be once the result is written (a file the result changes is checked as
// it will read): those of a Handled rule, in a Terraform file fix reads (.tf, .tfvars), not
// suppressed, with no `# sunset fix:` comment just above their line or above a block that
// holds it. Relative paths are from root; a file that cannot be read or parsed explains
// nothing (fix reports it on its own). asOf is the day check judges as of.
func (r *Result) Unexplained(ctx context.Context, root string, paths []string, asOf time.Time) ([]scanner.Finding, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(root, filepath.FromSlash(p))
	}
	checker := repo.NewChecker(nil, asOf)
	res, err := checker.Check(ctx, repo.Options{Paths: paths, AsOf: asOf})
	if err != nil {
		return nil, err
	}
	after := map[string][]byte{}
	for _, fc := range r.Files {
		after[abs(fc.Abs)] = fc.New
	}
	var findings []scanner.Finding
	for _, f := range res.Findings {
		if f.Location == nil || after[abs(f.Location.Path)] == nil {
			findings = append(findings, f)
		}
	}
	for path, data := range after {
		rr, err := checker.CheckReader(bytes.NewReader(data), path, repo.KindOf(path), 0)
		if err != nil {
			return nil, err
		}
		findings = append(findings, rr.Findings...)
	}
	files := map[string]*commentedFile{}
	var out []scanner.Finding
	for _, f := range findings {
		if f.Suppressed || f.Location == nil || !slices.Contains(Handled, f.RuleID) ||
			(!strings.HasSuffix(f.Location.Path, ".tf") && !strings.HasSuffix(f.Location.Path, ".tfvars")) {
			continue
		}
		path := abs(f.Location.Path)
		cf, ok := files[path]
		if !ok {
			cf = readCommented(path, after[path])
			files[path] = cf
		}
		if !cf.explains(f.Location.StartLine) {
			out = append(out, f)
		}
	}
	scanner.SortFindings(out)
	return out, nil
}

// commentedFile is a file's lines and parsed body, to find the comments above a line.
type commentedFile struct {
	lines []string
	body  *hclsyntax.Body
}

// readCommented reads the file at path, or src when it is not nil (a file as fix writes it).
func readCommented(path string, src []byte) *commentedFile {
	if src == nil {
		var err error
		if src, err = safefile.ReadFileNoFollow(path, maxFile); err != nil {
			return &commentedFile{}
		}
	}
	cf := &commentedFile{lines: strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")}
	if f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos); !diags.HasErrors() {
		cf.body = f.Body.(*hclsyntax.Body)
	}
	return cf
}

// explains reports whether a `# sunset fix:` comment stands just above line (1-based) or
// above something that holds it: a block, an attribute, an object's member.
func (cf *commentedFile) explains(line int) bool {
	if cf.body == nil {
		return false
	}
	starts := map[int]bool{line: true}
	_ = hclsyntax.VisitAll(cf.body, func(n hclsyntax.Node) hcl.Diagnostics {
		if r := n.Range(); r.Start.Line <= line && line <= r.End.Line {
			starts[r.Start.Line] = true
		}
		return nil
	})
	for s := range starts {
		if cf.commentAbove(s) {
			return true
		}
	}
	return false
}

// commentAbove reports whether the comment lines just above line (no blank line between)
// hold one starting with `# sunset fix:`.
func (cf *commentedFile) commentAbove(line int) bool {
	for i := line - 2; i >= 0 && i < len(cf.lines); i-- {
		l := strings.TrimSpace(cf.lines[i])
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "//") {
			return false
		}
		if strings.HasPrefix(l, commentMark) {
			return true
		}
	}
	return false
}
