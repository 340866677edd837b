package fix

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// pairModule is a module of provider v4 whose filter and firewall rule are in two files, so
// that fix changes both.
var pairModule = map[string]string{
	"filters.tf": `variable "zone_id" {
  type    = string
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

resource "cloudflare_filter" "bots" {
  zone_id    = var.zone_id
  expression = "(http.user_agent contains \"BadBot\")"
}
`,
	"rules.tf": `resource "cloudflare_firewall_rule" "bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bots.id
  action    = "block"
}
`,
}

// writeTree writes files (relative path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// twoRoots is a repository of two root modules, prod and staging, each with pairModule.
func twoRoots(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, root := range []string{"prod", "staging"} {
		files := map[string]string{}
		for name, text := range pairModule {
			files[root+"/"+name] = text
		}
		writeTree(t, dir, files)
	}
	return dir
}

// TestWriteIsAllOrNothingPerRootModule: when one file of a root module cannot be written
// (here: changed since fix read it, read-only, or a link), nothing of that module is: not its
// other file, not its state clean-up script; its state step is no longer advised and the
// error says which module and why. The other root module is written whole.
func TestWriteIsAllOrNothingPerRootModule(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, path string){
		"changed since read": func(t *testing.T, path string) {
			if err := os.WriteFile(path, append(mustRead(t, path), "# edited meanwhile\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"read-only": func(t *testing.T, path string) {
			if err := os.Chmod(path, 0o444); err != nil {
				t.Fatal(err)
			}
		},
		"a link": func(t *testing.T, path string) {
			if err := os.Rename(path, path+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Base(path)+".real", path); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := twoRoots(t)
			res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
			if err != nil {
				t.Fatal(err)
			}
			filters := filepath.Join(dir, "prod", "filters.tf")
			before := mustRead(t, filters)
			spoil(t, filepath.Join(dir, "prod", "rules.tf"))
			werr := res.Write()
			if werr == nil || !strings.Contains(werr.Error(), "root module prod: nothing written") || !strings.Contains(werr.Error(), "prod/rules.tf") {
				t.Fatalf("Write error = %v, want one naming root module prod and prod/rules.tf", werr)
			}
			if !bytes.Equal(mustRead(t, filters), before) {
				t.Error("prod/filters.tf was written though prod/rules.tf could not be")
			}
			if _, err := os.Stat(filepath.Join(dir, "prod", StateCleanupScript)); err == nil {
				t.Error("prod's state clean-up script was written though its configuration was not")
			}
			steps := strings.Join(res.StateSteps, "\n")
			if strings.Contains(steps, "In prod,") || !strings.Contains(steps, "In staging,") {
				t.Errorf("state steps after the write:\n%s", steps)
			}
			if _, err := os.Stat(filepath.Join(dir, "staging", StateCleanupScript)); err != nil {
				t.Errorf("staging was not written: %v", err)
			}
			if strings.Contains(string(mustRead(t, filepath.Join(dir, "staging", "rules.tf"))), "cloudflare_firewall_rule") {
				t.Error("staging/rules.tf still declares the firewall rule")
			}
		})
	}
}

// TestWriteSharedModuleJoinsItsRoots: two root modules calling one module are written
// together: one of them unwritable leaves the shared module and the other root unwritten.
func TestWriteSharedModuleJoinsItsRoots(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for name, text := range pairModule {
		files["modules/waf/"+name] = strings.Replace(text, `  default = "0da42c8d2132a9ddaf714f9e7c920711"`+"\n", "", 1)
	}
	for _, root := range []string{"prod", "staging"} {
		files[root+"/main.tf"] = "module \"waf\" {\n  source  = \"../modules/waf\"\n  zone_id = \"0da42c8d2132a9ddaf714f9e7c920711\"\n}\n"
	}
	writeTree(t, dir, files)
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "modules", "waf", "rules.tf"), 0o444); err != nil {
		t.Fatal(err)
	}
	werr := res.Write()
	if werr == nil || !strings.Contains(werr.Error(), "root modules prod, staging: nothing written") {
		t.Fatalf("Write error = %v, want one naming both root modules", werr)
	}
	for _, p := range []string{"prod/" + StateCleanupScript, "staging/" + StateCleanupScript} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written", p)
		}
	}
	if len(res.StateSteps) != 0 {
		t.Errorf("state steps advised though nothing was written: %q", res.StateSteps)
	}
}

// TestFilesKeepLineEndsAndByteOrderMark: a file with CRLF line ends and a UTF-8 byte order
// mark comes back with both, the lines fix writes included; a second run changes nothing.
func TestFilesKeepLineEndsAndByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for name, text := range pairModule {
		files[name] = "\xef\xbb\xbf" + strings.ReplaceAll(text, "\n", "\r\n")
	}
	writeTree(t, dir, files)
	for _, target := range []terraform.Provider{terraform.ProviderV4, terraform.ProviderV5} {
		res, err := Run(Options{Root: dir, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) > 0 || len(res.Rewrites) != 1 {
			t.Fatalf("%s: problems %v, rewrites %v", target, res.Problems, res.Rewrites)
		}
		for _, f := range res.Files {
			if !strings.HasSuffix(f.Path, ".tf") {
				continue
			}
			if !bytes.HasPrefix(f.New, bom) {
				t.Errorf("%s: %s lost its byte order mark", target, f.Path)
			}
			if n, crlf := bytes.Count(f.New, []byte("\n")), bytes.Count(f.New, []byte("\r\n")); n != crlf {
				t.Errorf("%s: %s has %d line ends, %d of them CRLF:\n%q", target, f.Path, n, crlf, f.New)
			}
		}
	}
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV4})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	again, err := Run(Options{Root: dir, Target: terraform.ProviderV4})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files) != 0 || len(again.Problems) != 0 {
		t.Errorf("a second run changes %d files (problems %v)", len(again.Files), again.Problems)
	}
}

// TestReplacedBlocksKeepTheirComments: the comments inside the blocks fix replaces are
// carried above the block that replaces them, under the old block's address.
func TestReplacedBlocksKeepTheirComments(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"filters.tf": strings.Replace(pairModule["filters.tf"], "  expression =", "  # BadBot ignores robots.txt (ticket SEC-12)\n  expression =", 1),
		"rules.tf": strings.Replace(pairModule["rules.tf"], `  action    = "block"`,
			"  action    = \"block\" // not challenge: it solves them\n  /* reviewed\n     2023 */", 1),
	})
	for _, target := range []terraform.Provider{terraform.ProviderV4, terraform.ProviderV5} {
		res, err := Run(Options{Root: dir, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		var all string
		for _, f := range res.Files {
			all += string(f.New)
		}
		for _, want := range []string{
			"# Comments of cloudflare_filter.bots (kept by sunset fix):\n# BadBot ignores robots.txt (ticket SEC-12)\n",
			"# Comments of cloudflare_firewall_rule.bots (kept by sunset fix):\n// not challenge: it solves them\n/* reviewed\n     2023 */\n",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the result lacks %q:\n%s", target, want, all)
			}
		}
	}
}

// TestReplacedSettingsKeepTheirComments: the same for a settings override that becomes one
// resource per setting (v5), whichever part of fix replaces the block.
func TestReplacedSettingsKeepTheirComments(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/zones", opts)
	if src := string(mustRead(t, filepath.Join(dir, "main.tf"))); !strings.Contains(src, "# Comments of cloudflare_zone_settings_override.docs (kept by sunset fix):\n# faster pages\n") {
		t.Errorf("the comment inside the override is lost:\n%s", src)
	}
}

// fixTree writes files into a new directory and fixes it for target, the result written.
func fixTree(t *testing.T, files map[string]string, target terraform.Provider) (string, *Result) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	res, err := Run(Options{Root: dir, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	return dir, res
}
