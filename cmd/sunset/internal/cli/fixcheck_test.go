package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// srvModule is a record module whose type is a variable (check reports its SRV data fields:
// it may be SRV) and a tfvars file of records whose SRV data fix does not rewrite.
func srvModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"main.tf": `variable "zone_id" {
  type = string
}

variable "type" {
  type = string
}

resource "cloudflare_record" "sip" {
  zone_id = var.zone_id
  name    = "_sip._tcp"
  type    = var.type

  data {
    service  = "_sip"
    proto    = "_tcp"
    name     = "@"
    priority = 10
    weight   = 5
    port     = 5060
    target   = "sip.example.org"
  }
}
`}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFixCheckFailsWhatCheckFails: fix --check fails while check reports, in the Terraform,
// a usage fix handles: first because there is something to rewrite (an SRV record whose
// type is a variable), then, once written, on a usage fix leaves no comment for (SRV data in
// a tfvars file) until a `# sunset fix:` comment says why it stays.
func TestFixCheckFailsWhatCheckFails(t *testing.T) {
	dir := srvModule(t)
	if r := runSunset(t, nil, "check", dir); r.code != ExitFindings {
		t.Fatalf("check: exit %d, want %d:\n%s", r.code, ExitFindings, r.stderr)
	}
	if r := runSunset(t, nil, "fix", "--check", dir); r.code != ExitFindings || !strings.Contains(r.stdout, `-    service  = "_sip"`) {
		t.Fatalf("fix --check: exit %d, want %d with the rewrite:\n%s%s", r.code, ExitFindings, r.stdout, r.stderr)
	}
	if r := runSunset(t, nil, "fix", "--write", dir); r.code != 0 {
		t.Fatalf("fix --write: exit %d:\n%s", r.code, r.stderr)
	}
	if r := runSunset(t, nil, "fix", "--check", dir); r.code != 0 {
		t.Fatalf("fix --check after the write: exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}

	tfvars := filepath.Join(dir, "terraform.tfvars")
	records := "records = {\n  sip = {\n    type = \"SRV\"\n    name = \"_sip._udp\"\n    data = { service = \"_sip\", proto = \"_udp\", name = \"@\", port = 5060 }\n  }\n}\n"
	if err := os.WriteFile(tfvars, []byte(records), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSunset(t, nil, "fix", "--check", dir)
	if r.code != ExitFindings || !strings.Contains(r.stderr, "with no # sunset fix: comment saying why it stays (") ||
		!strings.Contains(r.stderr, "terraform.tfvars:5: srv-data-fields") || !strings.Contains(r.stderr, "Nothing to rewrite") {
		t.Fatalf("fix --check with SRV data in tfvars: exit %d, want %d listing it:\n%s%s", r.code, ExitFindings, r.stdout, r.stderr)
	}
	explained := strings.Replace(records, "  sip = {", "  # sunset fix: these records feed another configuration, which drops the fields.\n  sip = {", 1)
	if err := os.WriteFile(tfvars, []byte(explained), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runSunset(t, nil, "fix", "--check", dir); r.code != 0 {
		t.Fatalf("fix --check with the comment: exit %d, want 0:\n%s", r.code, r.stderr)
	}
}

// TestFixCheckFailsWhileAReferenceDangles: an output reading the ids of firewall rules fix
// replaces has no counterpart fix can choose; after the rewrite is written, Terraform
// refuses the configuration, and fix --check keeps failing, naming the output, until it is
// pointed elsewhere.
func TestFixCheckFailsWhileAReferenceDangles(t *testing.T) {
	dir := t.TempDir()
	text := `variable "zone_id" {
  type    = string
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

resource "cloudflare_filter" "office" {
  zone_id    = var.zone_id
  expression = "ip.src in {192.0.2.0/24}"
}

resource "cloudflare_firewall_rule" "office" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.office.id
  action    = "block"
}

output "rule_id" {
  value = cloudflare_firewall_rule.office.id
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runSunset(t, nil, "fix", "--write", dir); r.code != 0 {
		t.Fatalf("fix --write: exit %d:\n%s", r.code, r.stderr)
	}
	r := runSunset(t, nil, "fix", "--check", dir)
	if r.code != ExitFindings || !strings.Contains(r.stderr, "output rule_id refers to cloudflare_firewall_rule.office, which no block declares") {
		t.Fatalf("fix --check after the write: exit %d, want %d naming the output:\n%s", r.code, ExitFindings, r.stderr)
	}
	written, err := os.ReadFile(filepath.Join(dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(written), "cloudflare_firewall_rule.office.id", "cloudflare_ruleset.custom_rules.id", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runSunset(t, nil, "fix", "--check", dir); r.code != 0 {
		t.Fatalf("fix --check once the output points elsewhere: exit %d:\n%s", r.code, r.stderr)
	}
}
