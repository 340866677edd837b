package terraform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// createsPlan is a plan whose only changes are a notification policy, a bookmark application
// and a redirect rule: what plan.md had only as API steps before.
func createsPlan() *migrate.Plan {
	acc := "0123456789abcdef0123456789abcdef"
	return &migrate.Plan{SchemaVersion: 1,
		Accounts: []migrate.AccountPlan{{AccountID: acc, AccountName: "Acme", Steps: []migrate.Step{
			{ID: "notification-policy.create:pool1", Kind: "notification-policy.create", Change: migrate.ChangeCreate,
				Method: "POST", Path: "/accounts/" + acc + "/alerting/v3/policies", Title: "Create a policy",
				Body: json.RawMessage(`{"name":"Pool p1","alert_type":"load_balancing_health_alert","enabled":true,"mechanisms":{"email":[{"id":"a@example.com"},{"id":"b@example.com"}]},"filters":{"pool_id":["pool1"]}}`)},
			{ID: "access-app.create:bm1", Kind: "access-app.create", Change: migrate.ChangeCreate,
				Method: "POST", Path: "/accounts/" + acc + "/access/apps", Title: "Create an app",
				Body: json.RawMessage(`{"type":"bookmark","name":"Wiki","domain":"wiki.example.com","app_launcher_visible":true}`)},
			{ID: "access-bookmark.delete:bm1", Kind: "access-bookmark.delete", Change: migrate.ChangeDelete,
				Method: "DELETE", Path: "/accounts/" + acc + "/access/bookmarks/bm1"},
		}}},
		Zones: []migrate.ZonePlan{{ZoneID: "z1", ZoneName: "m.example", Targets: []migrate.Target{{
			Phase: vocab.PhaseDynamicRedirect, Name: "default",
			Rules: []json.RawMessage{json.RawMessage(`{"action":"redirect","expression":"http.host eq \"m.example\"","enabled":true,"action_parameters":{"from_value":{"status_code":302,"preserve_query_string":true,"target_url":{"expression":"concat(\"https://m.m.example\", http.request.uri.path)"}}}}`)},
		}}, Steps: []migrate.Step{
			{ID: "redirect-rules.create", Kind: "redirect-rules.create", Change: migrate.ChangeCreate,
				Method: "PUT", Path: "/zones/z1/rulesets/phases/http_request_dynamic_redirect/entrypoint"},
			{ID: "redirect-rules.verify", Kind: "redirect-rules.verify", Change: migrate.ChangeVerify,
				Method: "GET", Path: "/zones/z1/rulesets/phases/http_request_dynamic_redirect/entrypoint"},
		}}},
	}
}

// TestCreatedObjectsAreDeclared (issue 10, 4.5): the notification policy, the bookmark
// application and the redirect rule the API steps create are Terraform resources too, with
// the attributes of the step bodies; README.md replaces exactly their create steps.
func TestCreatedObjectsAreDeclared(t *testing.T) {
	p := createsPlan()
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]*hclsyntax.Block{}
	for _, b := range blocksOf(parseTF(t, files, topLevel), "resource") {
		byType[b.Labels[0]] = b
	}
	pol := byType["cloudflare_notification_policy"]
	if pol == nil {
		t.Fatalf("no notification policy in %v", sortedNames(files))
	}
	if s := valueOf(t, pol, "account_id").AsString(); s != p.Accounts[0].AccountID {
		t.Errorf("policy account_id %q", s)
	}
	if s := valueOf(t, pol, "alert_type").AsString(); s != "load_balancing_health_alert" {
		t.Errorf("alert_type %q", s)
	}
	emails := valueOf(t, pol, "mechanisms").GetAttr("email")
	if emails.LengthInt() != 2 || emails.Index(cty.NumberIntVal(1)).GetAttr("id").AsString() != "b@example.com" {
		t.Errorf("mechanisms.email %#v", emails)
	}
	if f := valueOf(t, pol, "filters").GetAttr("pool_id"); f.LengthInt() != 1 || f.Index(cty.NumberIntVal(0)).AsString() != "pool1" {
		t.Errorf("filters.pool_id %#v", f)
	}
	app := byType["cloudflare_zero_trust_access_application"]
	if app == nil {
		t.Fatal("no Access application")
	}
	for attr, want := range map[string]string{"type": "bookmark", "name": "Wiki", "domain": "wiki.example.com"} {
		if s := valueOf(t, app, attr).AsString(); s != want {
			t.Errorf("application %s %q, want %q", attr, s, want)
		}
	}
	if !valueOf(t, app, "app_launcher_visible").True() {
		t.Error("app_launcher_visible not true")
	}
	rs := byType["cloudflare_ruleset"]
	if rs == nil || vocab.Phase(valueOf(t, rs, "phase").AsString()) != vocab.PhaseDynamicRedirect {
		t.Fatal("no redirect ruleset")
	}
	fv := valueOf(t, rs, "rules").Index(cty.NumberIntVal(0)).GetAttr("action_parameters").GetAttr("from_value")
	if n, _ := fv.GetAttr("status_code").AsBigFloat().Int64(); n != 302 || !strings.HasPrefix(fv.GetAttr("target_url").GetAttr("expression").AsString(), "concat(") {
		t.Errorf("from_value %#v", fv)
	}
	readme := string(files["README.md"])
	for _, id := range []string{"notification-policy.create:pool1", "access-app.create:bm1", "redirect-rules.create"} {
		if !strings.Contains(readme, "`"+id+"`") {
			t.Errorf("README.md does not list %s as replaced", id)
		}
	}
	if !strings.Contains(readme, "Access bookmarks (the old API) have no Terraform resource") || strings.Contains(readme, "DNS record fixes") {
		t.Error("README.md's \"Not in this configuration\" does not follow the plan's steps")
	}
	for _, id := range []string{"access-bookmark.delete:bm1", "redirect-rules.verify"} {
		if strings.Contains(readme, "`"+id+"`") {
			t.Errorf("README.md lists %s as replaced: it is the same on both ways", id)
		}
	}
}

// TestCreatedObjectUnknownMember: a step body member this package does not map fails the
// rendering instead of vanishing from the resource.
func TestCreatedObjectUnknownMember(t *testing.T) {
	p := createsPlan()
	p.Accounts[0].Steps[1].Body = json.RawMessage(`{"type":"bookmark","name":"Wiki","domain":"wiki.example.com","allowed_idps":["x"]}`)
	if _, err := Files(p); err == nil || !strings.Contains(err.Error(), "allowed_idps") {
		t.Fatalf("err = %v, want one naming allowed_idps", err)
	}
	p = createsPlan()
	p.Accounts[0].Steps[0].Path = "/zones/z1/alerting"
	if _, err := Files(p); err == nil {
		t.Fatal("a policy step outside an account rendered")
	}
}
