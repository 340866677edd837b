package terraform

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// demoAsOf is before every end of life the demo covers, so every kind of step appears.
var demoAsOf = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

func demoPlan(t *testing.T) *migrate.Plan {
	t.Helper()
	snap := seed.Demo()
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: demoAsOf})
	return migrate.Build(snap, res, migrate.Options{AsOf: demoAsOf})
}

// parsed is one generated .tf file, parsed with hcl/v2.
type parsed struct {
	name string
	body *hclsyntax.Body
}

// parseTF parses the .tf files of files whose name matches keep; it fails the test when one
// does not parse or is not what terraform fmt would leave.
func parseTF(t *testing.T, files map[string][]byte, keep func(name string) bool) []parsed {
	t.Helper()
	var out []parsed
	for _, name := range sortedNames(files) {
		if !strings.HasSuffix(name, ".tf") || !keep(name) {
			continue
		}
		src := files[name]
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s does not parse: %s", name, diags.Error())
		}
		if got := hclwrite.Format(src); !bytes.Equal(got, src) {
			t.Errorf("%s is not fmt clean", name)
		}
		out = append(out, parsed{name, f.Body.(*hclsyntax.Body)})
	}
	return out
}

// topLevel selects the files of the v5 configuration (Terraform reads no subfolder).
func topLevel(name string) bool { return !strings.Contains(name, "/") }

// inCleanup selects the files of the v4 state cleanup.
func inCleanup(name string) bool { return strings.HasPrefix(name, CleanupDir+"/") }

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sortStrings(names)
	return names
}

// blocksOf returns the blocks of a type across files.
func blocksOf(fs []parsed, typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, f := range fs {
		for _, b := range f.body.Blocks {
			if b.Type == typ {
				out = append(out, b)
			}
		}
	}
	return out
}

// refType is the resource type of an address attribute (to = TYPE.NAME, from = TYPE.NAME).
func refType(t *testing.T, b *hclsyntax.Block, attr string) (typ, address string) {
	t.Helper()
	a, ok := b.Body.Attributes[attr]
	if !ok {
		t.Fatalf("%s block without %s", b.Type, attr)
	}
	tr, diags := hcl.AbsTraversalForExpr(a.Expr)
	if diags.HasErrors() || len(tr) != 2 {
		t.Fatalf("%s.%s is not TYPE.NAME", b.Type, attr)
	}
	name := tr[1].(hcl.TraverseAttr).Name
	return tr.RootName(), tr.RootName() + "." + name
}

func renderDemo(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := Files(demoPlan(t))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFilesParseAndAreFormatted: every file parses with hcl/v2 and is what terraform fmt
// (hclwrite.Format) would leave unchanged; the blocks a Terraform user adopts are there.
func TestFilesParseAndAreFormatted(t *testing.T) {
	files := renderDemo(t)
	counts := map[string]int{}
	for _, f := range parseTF(t, files, topLevel) {
		for _, b := range f.body.Blocks {
			key := b.Type
			if len(b.Labels) > 0 {
				key += " " + b.Labels[0]
			}
			counts[key]++
		}
	}
	for key, min := range map[string]int{
		"terraform": 1, "resource cloudflare_ruleset": 10, "resource cloudflare_zone_dns_settings": 6,
		"resource cloudflare_account_dns_settings": 3, "import": 2,
		"resource cloudflare_notification_policy": 1, "resource cloudflare_zero_trust_access_application": 2,
	} {
		if counts[key] < min {
			t.Errorf("%d %q blocks, want at least %d (all: %v)", counts[key], key, min, counts)
		}
	}
	for _, name := range []string{"versions.tf", "README.md", CleanupDir + "/removed.tf", CleanupDir + "/state-rm.sh"} {
		if _, ok := files[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
}

// TestNoImportOfDNSSettings (issue 10, 4.1): the provider cannot import the DNS settings
// resources ("Resource Import Not Implemented" at plan), so they come without import blocks;
// entry points that exist are still imported, by zones/<zone>/<ruleset>.
func TestNoImportOfDNSSettings(t *testing.T) {
	p := demoPlan(t)
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	fs := parseTF(t, files, topLevel)
	imported := map[string]string{}
	for _, b := range blocksOf(fs, "import") {
		typ, addr := refType(t, b, "to")
		if typ == "cloudflare_zone_dns_settings" || typ == "cloudflare_account_dns_settings" {
			t.Errorf("import block for %s: the provider cannot import it", addr)
		}
		id, _ := b.Body.Attributes["id"].Expr.Value(nil)
		imported[addr] = id.AsString()
	}
	dns := 0
	for _, b := range blocksOf(fs, "resource") {
		if strings.HasSuffix(b.Labels[0], "_dns_settings") {
			dns++
		}
	}
	if dns == 0 {
		t.Fatal("the demo declares no DNS settings: the test proves nothing")
	}
	want := 0
	for _, z := range p.Zones {
		for _, tg := range z.Targets {
			if tg.RulesetID == "" {
				continue
			}
			want++
			found := false
			for _, id := range imported {
				found = found || id == "zones/"+z.ZoneID+"/"+tg.RulesetID
			}
			if !found {
				t.Errorf("zone %s: existing entry point %s (%s) is not imported", z.ZoneName, tg.Phase, tg.RulesetID)
			}
		}
	}
	if want == 0 || len(imported) != want {
		t.Errorf("%d import blocks, want one per existing entry point (%d)", len(imported), want)
	}
}

// TestV5ConfigurationHasNoRemovedBlocks (issue 10, 4.2 and 4.3): the v5 configuration holds
// no removed block at all, so none names a type v5 lacks (cloudflare_waf_*) or one whose v4
// state v5 rejects (cloudflare_firewall_rule, cloudflare_rate_limit).
func TestV5ConfigurationHasNoRemovedBlocks(t *testing.T) {
	files := renderDemo(t)
	for _, b := range blocksOf(parseTF(t, files, topLevel), "removed") {
		_, addr := refType(t, b, "from")
		t.Errorf("removed block for %s in the v5 configuration", addr)
	}
}

// TestCleanupNamesOnlyV4Types: the removed blocks of the v4 cleanup name exactly the retired
// objects of types provider v4 has (never cloudflare_waf_*, gone since v4.0.0), keep the
// objects (destroy = false), and state-rm.sh drops the same addresses.
func TestCleanupNamesOnlyV4Types(t *testing.T) {
	p := demoPlan(t)
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	waf := 0
	for _, z := range p.Zones {
		for _, r := range z.Retired {
			switch {
			case v4Types[r.Type]:
				want[oldAddress(r)] = true
			case strings.HasPrefix(r.Type, "cloudflare_waf_"):
				waf++
			}
		}
	}
	if len(want) == 0 || waf == 0 {
		t.Fatalf("the demo retires %d v4 resources and %d WAF overrides: the test proves nothing", len(want), waf)
	}
	got := map[string]bool{}
	for _, b := range blocksOf(parseTF(t, files, inCleanup), "removed") {
		typ, addr := refType(t, b, "from")
		if !v4SchemaTypes(t)[typ] {
			t.Errorf("removed block for %s: provider v4 has no type %s", addr, typ)
		}
		got[addr] = true
		lc := b.Body.Blocks
		if len(lc) != 1 || lc[0].Type != "lifecycle" {
			t.Fatalf("removed %s without a lifecycle block", addr)
		}
		if v, _ := lc[0].Body.Attributes["destroy"].Expr.Value(nil); !v.False() {
			t.Errorf("removed %s would destroy the object", addr)
		}
	}
	assertSameSet(t, "removed.tf", got, want)
	script := map[string]bool{}
	for _, line := range strings.Split(string(files[CleanupDir+"/state-rm.sh"]), "\n") {
		if a, ok := strings.CutPrefix(line, "terraform state rm "); ok {
			script[strings.Trim(a, "'")] = true
		}
	}
	assertSameSet(t, "state-rm.sh", script, want)
}

func assertSameSet(t *testing.T, what string, got, want map[string]bool) {
	t.Helper()
	for a := range want {
		if !got[a] {
			t.Errorf("%s misses %s", what, a)
		}
	}
	for a := range got {
		if !want[a] {
			t.Errorf("%s has %s, which the plan does not retire", what, a)
		}
	}
}

// TestProviderConstraint (issue 10, 4.4): versions.tf admits provider 5.19.0 and later
// within v5 only (5.0 and 5.1 lack the DNS settings resources, 5.2 to 5.4 refuse rate
// limiting periods 120 and 300, before 5.19 the account DNS settings lack enforce_dns_only),
// and Terraform 1.5 on (import).
func TestProviderConstraint(t *testing.T) {
	fs := parseTF(t, map[string][]byte{"versions.tf": versionsFile()}, topLevel)
	tf := blocksOf(fs, "terraform")
	if len(tf) != 1 {
		t.Fatalf("%d terraform blocks", len(tf))
	}
	req, _ := tf[0].Body.Attributes["required_version"].Expr.Value(nil)
	var rp *hclsyntax.Block
	for _, b := range tf[0].Body.Blocks {
		if b.Type == "required_providers" {
			rp = b
		}
	}
	cf, diags := rp.Body.Attributes["cloudflare"].Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if s := cf.GetAttr("source").AsString(); s != "cloudflare/cloudflare" {
		t.Errorf("source %q", s)
	}
	constraint := cf.GetAttr("version").AsString()
	for v, ok := range map[string]bool{
		"4.52.8": false, "5.0.0": false, "5.1.0": false, "5.2.0": false, "5.5.0": false, "5.18.9": false,
		"5.19.0": true, "5.22.0": true, "5.99.3": true, "6.0.0": false, "6.1.0": false,
	} {
		if got := admits(t, constraint, v); got != ok {
			t.Errorf("provider constraint %q admits %s: %v, want %v", constraint, v, got, ok)
		}
	}
	for v, ok := range map[string]bool{"1.4.7": false, "1.5.0": true, "1.11.4": true} {
		if got := admits(t, req.AsString(), v); got != ok {
			t.Errorf("required_version %q admits %s: %v, want %v", req.AsString(), v, got, ok)
		}
	}
}

// TestAdmits checks the test's own constraint evaluator against Terraform's rules.
func TestAdmits(t *testing.T) {
	for _, c := range []struct {
		constraint, v string
		want          bool
	}{
		{"~> 5.0", "5.1.0", true}, {"~> 5.0", "6.0.0", false}, {"~> 5.2.0", "5.3.0", false},
		{">= 1.2, < 2", "1.10.0", true}, {"> 1.2.0", "1.2.0", false}, {"<= 1.2", "1.2.0", true},
		{"= 1.2.3", "1.2.3", true}, {"1.2.3", "1.2.4", false}, {"!= 1.2.3", "1.2.4", true},
	} {
		if got := admits(t, c.constraint, c.v); got != c.want {
			t.Errorf("admits(%q, %s) = %v", c.constraint, c.v, got)
		}
	}
}

// TestReadmeOrder: README.md says the v4 state cleanup comes first, then the upgrade, then
// the apply, names the cleanup files (kept apart, in a folder Terraform does not read) and
// what the output is valid against.
func TestReadmeOrder(t *testing.T) {
	files := renderDemo(t)
	readme := string(files["README.md"])
	last := -1
	for _, step := range []string{"1. **On provider v4, drop the old resources from Terraform state**", "2. **Upgrade the provider**", "3. **Apply**", "4. **The remaining steps of `../plan.md`**"} {
		i := strings.Index(readme, step)
		if i < 0 {
			t.Fatalf("README.md has no step %q", step)
		}
		if i < last {
			t.Errorf("README.md: %q is out of order", step)
		}
		last = i
	}
	order := readme[strings.Index(readme, "## Order"):]
	for _, s := range []string{CleanupDir + "/removed.tf", CleanupDir + "/state-rm.sh", "before anything else", "provider v5 rejects the state v4 wrote"} {
		if !strings.Contains(order[:strings.Index(order, "2. **Upgrade")], s) {
			t.Errorf("step 1 does not mention %q", s)
		}
	}
	for _, s := range []string{"## Valid against", "`" + ProviderVersion + "`", "`" + TerraformVersion + "`", CheckedProviderVersion, "CI has no terraform binary"} {
		if !strings.Contains(readme, s) {
			t.Errorf("README.md does not say %q", s)
		}
	}
	for _, why := range apiOnly {
		if !strings.Contains(readme, why.why) {
			t.Errorf("README.md does not say why %s stays an API step (the demo has such a step)", why.fragment)
		}
	}
	for name := range files {
		if strings.Contains(name, "removed") && topLevel(name) {
			t.Errorf("%s is in the v5 configuration's folder", name)
		}
	}
}

// TestPlanAndTerraformNameEachOther: plan.md names terraform/ and its README and says one way
// only; README.md and every .tf file name ../plan.md; README.md's table of replaced steps
// points at real steps (same number as in plan.md) and real resources.
func TestPlanAndTerraformNameEachOther(t *testing.T) {
	p := demoPlan(t)
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"`terraform/`", "`terraform/README.md`", "never both"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("plan.md does not say %q", s)
		}
	}
	readme := string(files["README.md"])
	for _, s := range []string{"`../plan.md`", "never both"} {
		if !strings.Contains(readme, s) {
			t.Errorf("README.md does not say %q", s)
		}
	}
	for name, src := range files {
		if strings.HasSuffix(name, ".tf") && !bytes.Contains(bytes.SplitN(src, []byte("\n"), 2)[0], []byte("plan.md")) {
			t.Errorf("%s: the header does not name plan.md", name)
		}
	}
	checkReplacedTable(t, p, files)
}

// checkReplacedTable: each row "| N. `step id` ... | `TYPE.NAME` |" names step N of its
// scope in plan.md, a call that writes, and a resource the configuration declares.
func checkReplacedTable(t *testing.T, p *migrate.Plan, files map[string][]byte) {
	t.Helper()
	declared := map[string]bool{}
	for _, b := range blocksOf(parseTF(t, files, topLevel), "resource") {
		declared[b.Labels[0]+"."+b.Labels[1]] = true
	}
	rows := replacedRows(t, string(files["README.md"]))
	if len(rows) < 10 {
		t.Fatalf("%d replaced steps in the demo", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		steps := stepsOfScope(p, r.scope)
		if r.num < 1 || r.num > len(steps) || steps[r.num-1].ID != r.id {
			t.Errorf("%s: step %d is not %s", r.scope, r.num, r.id)
			continue
		}
		if st := steps[r.num-1]; !writes(st) || r.call != st.Method+" "+st.Path {
			t.Errorf("%s: %s is a read, the same on both ways, or not the call %q", r.scope, r.id, r.call)
		}
		if !declared[r.address] {
			t.Errorf("%s: %s is not declared", r.scope, r.address)
		}
		if seen[r.scope+r.id] {
			t.Errorf("%s: %s replaced twice", r.scope, r.id)
		}
		seen[r.scope+r.id] = true
	}
}

// replacedRow is a row of README.md's table of replaced steps, under its scope's heading.
type replacedRow struct {
	scope, id, call, address string
	num                      int
}

var replacedRowRE = regexp.MustCompile("^\\| ([0-9]+)\\. `([^`]+)`(?: \\(manual\\))? \\| `([^`]+)` \\| `([^`]+)` \\|$")

// replacedRows parses the table of replaced steps of README.md; scope is the heading as
// written (Markdown-escaped).
func replacedRows(t *testing.T, readme string) []replacedRow {
	t.Helper()
	_, table, _ := strings.Cut(readme, "## Steps this configuration replaces")
	table, _, _ = strings.Cut(table, "\n## ")
	var rows []replacedRow
	scope := ""
	for _, line := range strings.Split(table, "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			scope = h
			continue
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| plan.md step") {
			continue
		}
		m := replacedRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("README.md: row %q", line)
		}
		num, _ := strconv.Atoi(m[1])
		rows = append(rows, replacedRow{scope: scope, num: num, id: m[2], call: m[3], address: m[4]})
	}
	return rows
}

// stepsOfScope are the steps of the account or zone whose heading (Markdown-escaped, as
// README.md writes it) is scope.
func stepsOfScope(p *migrate.Plan, scope string) []migrate.Step {
	for i := range p.Accounts {
		if migrate.EscapeMarkdown(accountScope(&p.Accounts[i])) == scope {
			return p.Accounts[i].Steps
		}
	}
	for i := range p.Zones {
		if migrate.EscapeMarkdown(zoneScope(&p.Zones[i])) == scope {
			return p.Zones[i].Steps
		}
	}
	return nil
}

// TestWriteRemovesStaleGeneratedFiles: a zone that left the plan loses its generated file,
// and a plan that retires nothing loses the cleanup folder's files; files the user wrote stay.
func TestWriteRemovesStaleGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "zone_gone_example.tf")
	staleRm := filepath.Join(dir, CleanupDir, "state-rm.sh")
	mine := filepath.Join(dir, "main.tf")
	mineSub := filepath.Join(dir, CleanupDir, "notes.txt")
	if err := os.MkdirAll(filepath.Join(dir, CleanupDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string]string{
		stale: generatedMark + " old\n", staleRm: "#!/bin/sh\n" + generatedMark + " old\n",
		mine: "# mine\n", mineSub: "mine\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir, &migrate.Plan{SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{stale, staleRm} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("stale generated file %s kept", gone)
		}
	}
	for _, kept := range []string{mine, mineSub, filepath.Join(dir, "versions.tf"), filepath.Join(dir, "README.md")} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
}

// TestNames: resource and file names are valid identifiers and unique.
func TestNames(t *testing.T) {
	n := newNamer()
	a, b := n.name("zone_a.b_custom"), n.name("zone_a-b_custom")
	if a == b || strings.ContainsAny(a, ".") {
		t.Fatalf("names %q %q", a, b)
	}
	if c := n.name("zone_a.b_custom"); c == a {
		t.Fatalf("duplicate name %q", c)
	}
	if s := sanitize("1abc"); s[0] != '_' {
		t.Fatalf("sanitize 1abc = %q", s)
	}
}

// valueOf evaluates a literal attribute of a block.
func valueOf(t *testing.T, b *hclsyntax.Block, name string) cty.Value {
	t.Helper()
	a, ok := b.Body.Attributes[name]
	if !ok {
		t.Fatalf("%s %v has no %s", b.Type, b.Labels, name)
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return v
}

// TestProjectReadme: the plan help topic (cmd/sunset/help/plan.md, what `sunset help plan`
// shows) says what the Terraform output is valid against, with the constants this package
// writes.
func TestProjectReadme(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "sunset", "help", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	for _, want := range []string{"`" + ProviderVersion + "`", "Terraform >= 1.5", CheckedProviderVersion, "CI has no terraform", "never both", "terraform/README.md"} {
		if !strings.Contains(strings.Join(strings.Fields(section), " "), want) {
			t.Errorf("the plan help topic does not say %q", want)
		}
	}
}
