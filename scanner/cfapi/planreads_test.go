package cfapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

const planReadsToken = "plan-reads-token"

// planReadsAccount is an account with a bookmark and a pool with notification_email (so
// the emulator's Snapshot holds its applications and policies, as a collection reads them),
// and apps and policies applications and policies: more than the emulator's default page
// of 25 makes the lists two pages.
func planReadsAccount(apps, policies int) *inventory.Snapshot {
	a := inventory.AccountInventory{
		Account:           inventory.Account{ID: "acc1", Name: "Plan reads"},
		AccessBookmarks:   []inventory.AccessBookmark{{ID: "bm1", Name: "Wiki", Domain: "wiki.example"}},
		LoadBalancerPools: []inventory.LoadBalancerPool{{ID: "pool1", Name: "origins", NotificationEmail: "noc@example.com"}},
	}
	for i := range apps {
		a.AccessApps = append(a.AccessApps, inventory.AccessApp{ID: fmt.Sprintf("app%02d", i), Name: fmt.Sprintf("app %d", i), Type: "bookmark", Domain: fmt.Sprintf("app%d.example", i)})
	}
	for i := range policies {
		a.NotificationPolicies = append(a.NotificationPolicies, inventory.NotificationPolicy{ID: fmt.Sprintf("pol%02d", i), Name: fmt.Sprintf("policy %d", i), AlertType: "load_balancing_health_alert"})
	}
	return &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Accounts: []inventory.AccountInventory{a}}
}

// planReadsClient serves seed and returns the emulator and a client on it.
func planReadsClient(t *testing.T, seed *inventory.Snapshot) (*emulator.Server, *cfapi.Client) {
	t.Helper()
	srv, err := emulator.New(emulator.Options{Seed: seed, Token: planReadsToken, AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, err := cfapi.New(cfapi.Config{BaseURL: hs.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(planReadsToken), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// listQueries are the queries of the GETs of path the emulator logged, in order.
func listQueries(srv *emulator.Server, path string) []url.Values {
	var out []url.Values
	for _, r := range srv.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, path) {
			q, _ := url.ParseQuery(r.Query)
			out = append(out, q)
		}
	}
	return out
}

// TestListAccessAppsAndPoliciesFromEmulator reads both collections over two pages each:
// every item once, with the stamps the service sets on creation, equal to what the
// emulator's Snapshot says a collection reads; the first page asks for no per_page (the
// description declares none) and the second follows result_info.
func TestListAccessAppsAndPoliciesFromEmulator(t *testing.T) {
	srv, c := planReadsClient(t, planReadsAccount(29, 26))
	ctx := context.Background()
	// Created as a plan's steps create them, so the service's stamps are on them.
	for path, body := range map[string]string{
		"/accounts/acc1/access/apps":          `{"type":"bookmark","name":"Grafana","domain":"grafana.example"}`,
		"/accounts/acc1/alerting/v3/policies": `{"name":"pool","alert_type":"load_balancing_health_alert","mechanisms":{"email":[{"id":"noc@example.com"}]}}`,
	} {
		if err := c.Call(ctx, http.MethodPost, path, json.RawMessage(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	apps, err := c.ListAccessApps(ctx, "acc1")
	if err != nil {
		t.Fatal(err)
	}
	policies, err := c.ListNotificationPolicies(ctx, "acc1")
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 30 || len(policies) != 27 {
		t.Fatalf("read %d applications and %d policies, want 30 and 27", len(apps), len(policies))
	}
	if last := apps[29]; last.Name != "Grafana" || last.Type != "bookmark" || last.CreatedAt == "" || last.AppLauncherVisible == nil || len(last.Extra["aud"]) == 0 {
		t.Errorf("created application read as %+v", last)
	}
	if last := policies[26]; last.Name != "pool" || last.Created == "" || last.Enabled == nil || !*last.Enabled || len(last.Mechanisms) == 0 {
		t.Errorf("created policy read as %+v", last)
	}
	slices.SortFunc(apps, func(a, b inventory.AccessApp) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(policies, func(a, b inventory.NotificationPolicy) int { return strings.Compare(a.ID, b.ID) })
	want := srv.Snapshot().Accounts[0]
	got, _ := json.Marshal([]any{apps, policies})
	if w, _ := json.Marshal([]any{want.AccessApps, want.NotificationPolicies}); !bytes.Equal(got, w) {
		t.Errorf("the lists read differ from the emulator's Snapshot:\n%s\n%s", got, w)
	}
	for _, path := range []string{"/access/apps", "/alerting/v3/policies"} {
		qs := listQueries(srv, path)
		if len(qs) != 2 || qs[0].Has("per_page") || qs[0].Has("page") || qs[1].Get("page") != "2" || qs[1].Has("per_page") {
			t.Errorf("%s: queries %v, want none, then page=2", path, qs)
		}
	}
}

// TestPlanReadsSnapshotCondition: the emulator's Snapshot holds an account's applications
// and policies only where a collection reads them, as a collection would read them.
func TestPlanReadsSnapshotCondition(t *testing.T) {
	seed := planReadsAccount(1, 1)
	a := &seed.Accounts[0]
	a.AccessBookmarks = nil
	a.LoadBalancerPools[0].NotificationEmail = "  "
	srv, _ := planReadsClient(t, seed)
	if got := srv.Snapshot().Accounts[0]; got.AccessApps != nil || got.NotificationPolicies != nil {
		t.Errorf("no bookmark, no notification_email: the snapshot holds %d applications and %d policies", len(got.AccessApps), len(got.NotificationPolicies))
	}
	apps, policies := srv.Replacements("acc1")
	if len(apps) != 1 || len(policies) != 1 {
		t.Errorf("the seed's application and policy were not loaded: %v %v", apps, policies)
	}
}
