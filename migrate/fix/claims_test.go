package fix

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/fix/internal/tfrun"
	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
)

// Each fixture is configuration for one provider release, and is valid for it: a rewrite
// proven on an input no provider would take proves little.

// Provider releases a fixture claims. v3 has no schema here: a v3 fixture is checked against
// v4.52.8, the closest release held, its types that no release since v3 has accepted by name.
const (
	claimV3 = "3"
	claimV4 = "4.52.8"
	claimV5 = "5.22.0"
)

// v3Only are the types of provider v3 that no later release has.
var v3Only = []string{"cloudflare_argo_tunnel", "cloudflare_access_bookmark", "cloudflare_waf_package", "cloudflare_waf_group", "cloudflare_waf_rule", "cloudflare_waf_override"}

// fixtureClaim is the release a fixture is written for, and the errors it has on purpose
// (a substring of each error, with why).
type fixtureClaim struct {
	version string
	invalid map[string]string
}

// claims holds every fixture directory under testdata (its modules included).
var claims = map[string]fixtureClaim{
	"count": {version: claimV4}, "crossmodule": {version: claimV4}, "foreach": {version: claimV4},
	"literal": {version: claimV4}, "merge": {version: claimV4}, "module": {version: claimV4},
	"nopriority": {version: claimV4}, "templates": {version: claimV4}, "vardriven": {version: claimV4},
	"inline5": {version: claimV5}, "merge5": {version: claimV5}, "ratelimit5": {version: claimV5},
	"ratelimit/business": {version: claimV4}, "ratelimit/left": {version: claimV4}, "ratelimit/modules": {version: claimV4},
	"ratelimit/pro": {version: claimV4}, "ratelimit/unknown": {version: claimV4}, "ratelimit/declared": {version: claimV5},
	"records/dynamic": {version: claimV4}, "records/v4": {version: claimV4},
	"records/v5": {version: claimV5, invalid: map[string]string{
		"cloudflare_dns_record.ldap.data.proto: no such attribute": "no v5 release has an SRV record's proto or name: the fixture is a v5 record that kept v4's fields (as a hand upgrade leaves it), which fix removes",
		"cloudflare_dns_record.ldap.data.name: no such attribute":  "as above",
	}},
	"settings/unnamed": {version: claimV4}, "settings/zones": {version: claimV4}, "settings/v5": {version: claimV5},
	"zonesdata": {version: claimV4},
	"lookup":    {version: claimV4}, "toggles": {version: claimV4}, "sequence": {version: claimV4},
	"ratelimit/refs": {version: claimV4}, "records/collection": {version: claimV4},
	"records/generic": {version: claimV4}, "records/typevar": {version: claimV4},
	"settings/driven": {version: claimV4}, "settings/repeated": {version: claimV4},
	"settings/wafon": {version: claimV4}, "settings/wafv5": {version: claimV5},
	"filterid5": {version: claimV5, invalid: map[string]string{
		"filter.id: computed only": "what a v5 upgrade (tf-migrate) writes for a rule's filter: filter = { id = ... }, which 5.22 computes and refuses; fix rewrites such rules away",
	}},
	"renames": {version: claimV3}, "waf/shop": {version: claimV3}, "waf/repeated": {version: claimV3},
}

// claimOf is the claim of the fixture holding the directory dir (relative to testdata).
func claimOf(dir string) (string, fixtureClaim, bool) {
	for d := dir; d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
		if c, ok := claims[d]; ok {
			return d, c, true
		}
	}
	return "", fixtureClaim{}, false
}

// TestFixtureInputsAreValidForTheirProvider: every .tf file under testdata belongs to a
// fixture that claims a provider release (its required_providers constraint, where it has
// one, agrees), and its blocks of the provider's types, data sources included, are valid for
// that release's schema, references to attributes included; the only errors are those the
// claim lists, each there.
func TestFixtureInputsAreValidForTheirProvider(t *testing.T) {
	seen := map[string]map[string]bool{}
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tf") {
			return err
		}
		rel, _ := filepath.Rel("testdata", filepath.Dir(p))
		name, claim, ok := claimOf(filepath.ToSlash(rel))
		if !ok {
			t.Errorf("%s: no fixture claims it: add its directory to claims", p)
			return nil
		}
		if seen[name] == nil {
			seen[name] = map[string]bool{}
		}
		for _, e := range checkInput(t, claim.version, p, mustRead(t, p)) {
			if why := matchInvalid(claim, e); why != "" {
				seen[name][why] = true
				continue
			}
			t.Errorf("%s (claims provider %s): %s", name, claim.version, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range claims {
		for sub := range c.invalid {
			if !seen[name][sub] {
				t.Errorf("%s: claims the error %q, which the check no longer gives: drop it from claims", name, sub)
			}
		}
	}
}

// matchInvalid is the listed error e is, "" for none.
func matchInvalid(c fixtureClaim, e string) string {
	for sub := range c.invalid {
		if strings.Contains(e, sub) {
			return sub
		}
	}
	return ""
}

// constraintMajor reads the major version of a required_providers constraint ("~> 4.40").
var constraintMajor = regexp.MustCompile(`(?m)^\s*version\s*=\s*"[~>=<! ]*(\d+)\.`)

// checkInput checks one input file against the release it claims: the provider's resource
// and data blocks (other providers' are not these schemas' business), and any version
// constraint the file states. It returns the errors as text.
func checkInput(t *testing.T, version, path string, src []byte) []string {
	t.Helper()
	var out []string
	if m := constraintMajor.FindSubmatch(src); m != nil && string(m[1]) != strings.Split(version, ".")[0] {
		out = append(out, path+": its required_providers constraint is provider "+string(m[1])+", not "+version)
	}
	schemaVersion := version
	if version == claimV3 {
		schemaVersion = claimV4
	}
	s, err := tfschema.Load(schemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return append(out, diags.Error())
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if len(b.Labels) != 2 || !strings.HasPrefix(b.Labels[0], "cloudflare_") {
			continue
		}
		var errs []error
		switch b.Type {
		case "resource":
			errs = s.CheckResource(b)
		case "data":
			errs = s.CheckDataSource(b)
		}
		for _, e := range errs {
			if version == claimV3 && slices.ContainsFunc(v3Only, func(typ string) bool { return strings.Contains(e.Error(), typ) }) {
				continue
			}
			out = append(out, e.Error())
		}
	}
	return out
}

// TestInlineInputsAreValidForTheirProvider: the configurations this package's tests write
// themselves are valid for the release they are written for.
func TestInlineInputsAreValidForTheirProvider(t *testing.T) {
	for name, text := range pairModule {
		for _, e := range checkInput(t, claimV4, name, []byte(text)) {
			t.Errorf("pairModule: %s", e)
		}
	}
}

// TestTerraformValidatesFixtureInputs: each fixture claiming v4.52.8 or v5.22.0 passes
// `terraform validate` with that provider build as it is, before any fix: the provider's own
// validators (value ranges, conflicts) see what the reduced schemas do not. Skips without
// SUNSET_TERRAFORM (see tfrun).
func TestTerraformValidatesFixtureInputs(t *testing.T) {
	tf := tfrun.Find(t)
	for name, c := range claims {
		if c.version == claimV3 || len(c.invalid) > 0 {
			continue // no provider build of v3; an input invalid on purpose
		}
		t.Run(name, func(t *testing.T) {
			dir := copyFixture(t, name)
			tfrun.PinProvider(t, dir, c.version)
			tf.Validate(t, dir)
		})
	}
}
