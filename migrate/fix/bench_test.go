package fix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// benchRepo writes a repository of modules (one per zone), each with literal firewall rule
// pairs and one for_each pair over a variable's default.
func benchRepo(b *testing.B, modules, pairs int) string {
	b.Helper()
	dir := b.TempDir()
	for m := 0; m < modules; m++ {
		var s strings.Builder
		fmt.Fprintf(&s, "variable \"zone_id\" {\n  default = \"%032x\"\n}\n\n", m+1)
		s.WriteString("variable \"rules\" {\n  default = {\n")
		for i := 0; i < pairs; i++ {
			fmt.Fprintf(&s, "    r%d = { expression = \"ip.geoip.country eq \\\"C%d\\\"\", action = \"block\" }\n", i, i%10)
		}
		s.WriteString("  }\n}\n\n")
		for i := 0; i < pairs; i++ {
			fmt.Fprintf(&s, "resource \"cloudflare_filter\" \"f%d\" {\n  zone_id    = var.zone_id\n  expression = \"http.request.uri.path eq \\\"/p%d\\\" and ip.geoip.asnum eq %d\"\n}\n\n", i, i, 64496+i)
			fmt.Fprintf(&s, "resource \"cloudflare_firewall_rule\" \"f%d\" {\n  zone_id   = var.zone_id\n  filter_id = cloudflare_filter.f%d.id\n  action    = \"%s\"\n  priority  = %d\n}\n\n", i, i, []string{"block", "allow", "challenge"}[i%3], i+1)
		}
		s.WriteString("resource \"cloudflare_filter\" \"each\" {\n  for_each   = var.rules\n  zone_id    = var.zone_id\n  expression = each.value.expression\n}\n\n")
		s.WriteString("resource \"cloudflare_firewall_rule\" \"each\" {\n  for_each  = var.rules\n  zone_id   = var.zone_id\n  filter_id = cloudflare_filter.each[each.key].id\n  action    = each.value.action\n}\n")
		md := filepath.Join(dir, fmt.Sprintf("zone%03d", m))
		if err := os.MkdirAll(md, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(md, "main.tf"), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkFix: a repository of 20 zone modules with 20 literal pairs and a for_each of 20
// rules each (800 firewall rules), read, rewritten, verified and diffed.
func BenchmarkFix(b *testing.B) {
	dir := benchRepo(b, 20, 20)
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Rewrites) != 20 {
			b.Fatalf("%d rewrites, want 20", len(res.Rewrites))
		}
		if _, err := res.Diff(); err != nil {
			b.Fatal(err)
		}
	}
}
