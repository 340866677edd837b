package fix

import (
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// TestModuleCycles: a module calling its own directory, and two modules calling each other
// (configurations Terraform refuses), are read without recursing forever; the firewall rules
// in them are still rewritten.
func TestModuleCycles(t *testing.T) {
	pair := `variable "zone_id" {
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

resource "cloudflare_filter" "f" {
  zone_id    = var.zone_id
  expression = "ip.src eq 192.0.2.1"
}

resource "cloudflare_firewall_rule" "r" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.f.id
  action    = "block"
}
`
	dir := t.TempDir()
	files := map[string]string{
		"self/main.tf": pair + "\nmodule \"again\" {\n  source  = \"./\"\n  zone_id = var.zone_id\n}\n",
		"a/main.tf":    pair + "\nmodule \"b\" {\n  source  = \"../b\"\n  zone_id = var.zone_id\n}\n",
		"b/main.tf":    pair + "\nmodule \"a\" {\n  source  = \"../a\"\n  zone_id = var.zone_id\n}\n",
	}
	writeTree(t, dir, files)
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rewrites) != 3 {
		t.Errorf("%d rewrites, want one per module: %+v", len(res.Rewrites), res.Rewrites)
	}
}
