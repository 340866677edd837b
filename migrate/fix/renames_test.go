package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

func TestTunnelAndBookmarkV5(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "renames", opts)
	checkNewTypes(t, "renames", dir, opts.Target)
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{
		"resource \"cloudflare_zero_trust_tunnel_cloudflared\" \"home\" {\n  account_id    = var.account_id\n  name          = \"home-lab\"\n  tunnel_secret = var.tunnel_secret\n}",
		`value   = "${cloudflare_zero_trust_tunnel_cloudflared.home.id}.cfargotunnel.com"`,
		// v5's tunnel has no cname: what it always was, written out, in a template too
		"  value   = \"${cloudflare_zero_trust_tunnel_cloudflared.home.id}.cfargotunnel.com\"\n  proxied = true\n}\n\noutput",
		`value = "tunnel at ${cloudflare_zero_trust_tunnel_cloudflared.home.id}.cfargotunnel.com"`,
		"# sunset fix: output tunnel_token reads cloudflare_zero_trust_tunnel_cloudflared.home.tunnel_token, and cloudflare_zero_trust_tunnel_cloudflared has no tunnel_token",
		"resource \"cloudflare_zero_trust_access_application\" \"wiki\" {\n  type                 = \"bookmark\"\n",
		"value = cloudflare_zero_trust_access_application.wiki.id",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	if len(res.Left) != 1 || !strings.Contains(res.Left[0].Message, "tunnel_token") {
		t.Errorf("left %v, want the tunnel_token reference only", res.Left)
	}
	steps := strings.Join(res.StateSteps, "\n")
	if !strings.Contains(steps, "terraform state rm 'cloudflare_argo_tunnel.home'") || !strings.Contains(steps, "terraform import 'cloudflare_zero_trust_tunnel_cloudflared.home'") {
		t.Errorf("state steps:\n%s", steps)
	}
	if !strings.Contains(steps, "terraform state rm 'cloudflare_access_bookmark.wiki'") {
		t.Errorf("state steps:\n%s", steps)
	}
	// Neither old type is in a v4 or v5 state: no clean-up script, no removed block.
	if _, err := os.Stat(filepath.Join(dir, StateCleanupScript)); err == nil {
		t.Errorf("a state clean-up script for v3 types")
	}
	checkFixed(t, dir, opts, "argo-tunnels-api", 0)
	checkFixed(t, dir, opts, "access-bookmarks-api", 0)
}

func TestTunnelAndBookmarkV4(t *testing.T) {
	opts := Options{Target: terraform.ProviderV4}
	dir, res := fixedCopy(t, "renames", opts)
	checkNewTypes(t, "renames", dir, opts.Target)
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{
		"resource \"cloudflare_tunnel\" \"home\" {\n  account_id = var.account_id\n  name       = \"home-lab\"\n  secret     = var.tunnel_secret\n}",
		"resource \"cloudflare_access_application\" \"wiki\" {\n  type                 = \"bookmark\"\n",
		"value = \"tunnel at ${cloudflare_tunnel.home.cname}\"", // v4's cloudflare_tunnel has cname
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	if len(res.Left) != 0 || strings.Contains(string(src), "removed {") {
		t.Errorf("left: %v\n%s", res.Left, src)
	}
	checkFixed(t, dir, opts, "argo-tunnels-api", 0)
	checkFixed(t, dir, opts, "access-bookmarks-api", 0)
}
