package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

func TestSRVAndPoolEmail(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "records/v4", opts)
	checkNewTypes(t, "records/v4", dir, opts.Target)
	if rw, ok := rewriteOf(res, "cloudflare_record.sip"); !ok || len(rw.Old) != 3 || rw.Zone != "corp.example.net" {
		t.Errorf("sip rewrite = %+v", res.Rewrites)
	}
	if l := leftFor(res, "cloudflare_record.xmpp"); len(l) != 1 || !strings.Contains(l[0], "compose _xmpp-server._tcp.corp.example.net, which conflicts with the record name _xmpp-client._tcp") {
		t.Errorf("xmpp left = %v", res.Left)
	}
	if l := leftFor(res, "cloudflare_load_balancer_pool.web.notification_email"); len(l) != 1 || !strings.Contains(l[0], "noc@corp.example.net,oncall@corp.example.net") {
		t.Errorf("pool left = %v", res.Left)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{
		"  data {\n    priority = 10\n    weight   = 5\n    port     = 5060\n",
		"  account_id = \"d41d8cd98f00b204e9800998ecf8427e\"\n  name       = \"web\"\n  # sunset fix: cloudflare_load_balancer_pool.web.notification_email dropped: set up a notification policy",
		"until then nobody is mailed about its health.\n  minimum_origins = 1\n",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	if got := ruleFindings(t, dir, "notification-email"); len(got) != 0 {
		t.Errorf("notification_email still reported: %v", got)
	}
	checkFixed(t, dir, opts, "srv-data-fields", 3) // xmpp's three fields stay
}

// A v5 cloudflare_dns_record's data object: the fields agree with the name as written,
// without the zone's name.
func TestSRVObject(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "records/v5", opts)
	checkNewTypes(t, "records/v5", dir, opts.Target)
	if rw, ok := rewriteOf(res, "cloudflare_dns_record.ldap"); !ok || len(rw.Old) != 3 {
		t.Errorf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	if !strings.Contains(string(src), "  data = {\n    priority = 0\n    weight   = 100\n") {
		t.Errorf("rewritten file:\n%s", src)
	}
	checkFixed(t, dir, opts, "srv-data-fields", 0)
}

// Records written from a collection through a dynamic data block: the fields go from the
// content, and the rewrite says the collection is not in the repository (not proven).
func TestSRVDynamic(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	before := len(ruleFindings(t, filepath.Join("testdata", "records", "dynamic"), "srv-data-fields"))
	if before == 0 {
		t.Fatal("check finds no SRV data fields in the fixture")
	}
	dir, res := fixedCopy(t, "records/dynamic", opts)
	if rw, ok := rewriteOf(res, "cloudflare_record.all"); !ok || len(rw.Old) != 3 || !strings.Contains(rw.Proven, "not proven: the repository does not hold the collection var.records") {
		t.Errorf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	checkFixed(t, dir, opts, "srv-data-fields", 0)
}
