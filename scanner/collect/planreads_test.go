package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// planReadKeys are the fake's keys of an account's reads for the plan.
func planReadKeys(accountID string) (apps, policies string) {
	return accountID + " " + inventory.PartAccessApps, accountID + " " + inventory.PartNotificationPolicies
}

// planReadsFixture is fixture(n) (two accounts, each with a bookmark and a pool with a
// notification_email) with an Access application and a notification policy in each.
func planReadsFixture(n int) (*fake, *inventory.Snapshot) {
	f, data := newFixture(n)
	for i := range data.Accounts {
		a := &data.Accounts[i]
		a.AccessApps = []inventory.AccessApp{{ID: hexID(16, i), Name: "bookmark", Type: "bookmark", Domain: "intranet.example"}}
		a.NotificationPolicies = []inventory.NotificationPolicy{{ID: hexID(17, i), Name: "pool", AlertType: "load_balancing_health_alert"}}
	}
	return f, data
}

// TestReadsForPlanOnlyWhereNeeded: an account's Access applications are read only when it
// has a bookmark, its notification policies only when a pool has a notification_email (a
// blank one is none, as for the finding), and neither when the list that decides failed.
func TestReadsForPlanOnlyWhereNeeded(t *testing.T) {
	f, data := planReadsFixture(2)
	both, neither := &data.Accounts[0], &data.Accounts[1]
	neither.AccessBookmarks = nil
	neither.LoadBalancerPools = []inventory.LoadBalancerPool{{ID: "p-blank", NotificationEmail: " "}, {ID: "p-none"}}
	failed := inventory.AccountInventory{
		Account:           inventory.Account{ID: hexID(0, 3), Name: "account 3"},
		AccessBookmarks:   both.AccessBookmarks,
		LoadBalancerPools: both.LoadBalancerPools,
	}
	data.Accounts = append(data.Accounts, failed)
	f.fail[failed.Account.ID+" "+partBookmarks] = &statusErr{500, "bookmarks down"}
	f.fail[failed.Account.ID+" "+partPools] = &statusErr{502, "pools down"}
	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		account        string
		apps, policies int
	}{{both.Account.ID, 1, 1}, {neither.Account.ID, 0, 0}, {failed.Account.ID, 0, 0}} {
		apps, policies := planReadKeys(tc.account)
		if got := [2]int{f.callCount(apps), f.callCount(policies)}; got != [2]int{tc.apps, tc.policies} {
			t.Errorf("account %s: applications read %d times, policies %d; want %d, %d", tc.account, got[0], got[1], tc.apps, tc.policies)
		}
	}
	want := expected(data, "fake")
	want.Incomplete = true
	want.Accounts[1].AccessApps, want.Accounts[1].NotificationPolicies = nil, nil
	w := &want.Accounts[2]
	w.AccessBookmarks, w.LoadBalancerPools = nil, nil
	w.Errors = []inventory.CollectError{{What: partBookmarks, Message: "HTTP 500: bookmarks down"}, {What: partPools, Message: "HTTP 502: pools down"}}
	sameSnapshot(t, snap, want)
}

// TestReadForPlanFailureIsThatPartsError: a 403 on the applications (which IsFatal calls
// fatal elsewhere) and a 500 on the policies are each recorded as that part's error of its
// account; the collection goes on and every other part of every account and zone is read.
func TestReadForPlanFailureIsThatPartsError(t *testing.T) {
	f, data := planReadsFixture(4)
	first, second := data.Accounts[0].Account.ID, data.Accounts[1].Account.ID
	apps, _ := planReadKeys(first)
	_, policies := planReadKeys(second)
	f.fail[apps] = &statusErr{403, "token lacks Access: Apps read"}
	f.fail[policies] = &statusErr{500, "alerting down"}
	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatalf("a failed read for the plan ended the collection: %v", err)
	}
	if !snap.Incomplete {
		t.Error("Incomplete not set: the plan would not know it could not check")
	}
	want := expected(data, "fake")
	want.Incomplete = true
	want.Accounts[0].AccessApps = nil
	want.Accounts[0].Errors = []inventory.CollectError{{What: inventory.PartAccessApps, Message: "HTTP 403: token lacks Access: Apps read"}}
	want.Accounts[1].NotificationPolicies = nil
	want.Accounts[1].Errors = []inventory.CollectError{{What: inventory.PartNotificationPolicies, Message: "HTTP 500: alerting down"}}
	sameSnapshot(t, snap, want)
}

// TestReusedAccountKeepsItsReadsForPlan: --resume and --since reuse an account whole, its
// applications and policies with its other parts, without a request; an account whose
// earlier read of them failed, or that the audit log names, is read again whole.
func TestReusedAccountKeepsItsReadsForPlan(t *testing.T) {
	f, data := planReadsFixture(2)
	first, second := data.Accounts[0].Account.ID, data.Accounts[1].Account.ID
	apps, _ := planReadKeys(first)
	f.fail[apps] = &statusErr{403, "forbidden"}
	earlier, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	delete(f.fail, apps)
	st := &inventory.Stream{Snapshot: earlier}
	for _, tc := range []struct {
		name    string
		changed map[string]bool
		reread  []string
	}{
		{"resume", nil, []string{first}},
		{"since, second account changed", map[string]bool{second: true}, []string{first, second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.calls = map[string]int{}
			opts := testOptions()
			opts.Reuse = func(inventory.Zone) (*inventory.ZoneInventory, bool) { return nil, false }
			opts.ReuseAccount = ReuseCompleteAccounts(st, tc.changed)
			snap, err := Collect(context.Background(), f, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range data.Accounts {
				id := a.Account.ID
				apps, policies := planReadKeys(id)
				n := f.callCount(id+" dns_settings") + f.callCount(apps) + f.callCount(policies)
				if want := 3 * boolInt(slices.Contains(tc.reread, id)); n != want {
					t.Errorf("account %s: %d of its dns_settings, applications and policies read, want %d", id, n, want)
				}
			}
			sameSnapshot(t, snap, expected(data, "fake"))
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEstimateCountsReadsForPlan: with an earlier snapshot, the estimate of the accounts'
// reads is what a collection sends, the reads for the plan included; without one it counts
// RequestsPerAccount and says up to how many more; an earlier read that could not read the
// bookmarks cannot tell whether the applications will be read.
func TestEstimateCountsReadsForPlan(t *testing.T) {
	f, data := planReadsFixture(2)
	data.Accounts[1].LoadBalancerPools = nil // reads its applications, not its policies
	earlier, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions()
	opts.ListOnly = true
	listed, err := Collect(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	zonesReused := func(inventory.Zone) (*inventory.ZoneInventory, bool) { return &inventory.ZoneInventory{}, true }
	est := EstimateRequests(listed, Options{Reuse: zonesReused}, earlier)

	f.calls = map[string]int{}
	opts = testOptions()
	opts.Reuse = zonesReused
	if _, err := Collect(context.Background(), f, opts); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for key, n := range f.calls {
		if key != "accounts" && !strings.HasSuffix(key, " zones") {
			sent += n
		}
	}
	if est.Requests != sent || est.Conditional != 0 || sent != 4+2+4+1 {
		t.Errorf("estimated %d requests (and up to %d more), the accounts' reads sent %d, want 11", est.Requests, est.Conditional, sent)
	}

	if e := EstimateRequests(listed, Options{Reuse: zonesReused}, nil); e.Requests != 2*RequestsPerAccount || e.Conditional != 2*ConditionalAccountRequests {
		t.Errorf("without an earlier snapshot: %d requests and up to %d more, want %d and %d", e.Requests, e.Conditional, 2*RequestsPerAccount, 2*ConditionalAccountRequests)
	}
	earlier.Accounts[0].AccessBookmarks = nil
	earlier.Accounts[0].Errors = []inventory.CollectError{{What: partBookmarks, Message: "HTTP 500"}}
	if e := EstimateRequests(listed, Options{Reuse: zonesReused}, earlier); e.Requests != sent-1 || e.Conditional != 1 {
		t.Errorf("earlier bookmarks unread: %d requests and up to %d more, want %d and 1", e.Requests, e.Conditional, sent-1)
	}
}

// TestReadsForPlanFromEmulator collects, through the client, the demo with an Access
// application in every account and a notification policy in Globex (the account with a
// pool's notification_email): the lists equal the emulator's Snapshot, which holds them
// where a collection reads them, and the accounts without bookmarks have theirs unread.
func TestReadsForPlanFromEmulator(t *testing.T) {
	data := seed.Demo()
	for i := range data.Accounts {
		a := &data.Accounts[i]
		a.AccessApps = []inventory.AccessApp{{ID: hexID(18, i), Name: "Grafana", Type: "bookmark", Domain: "grafana.example"}}
		if a.NeedsNotificationPolicies() {
			a.NotificationPolicies = []inventory.NotificationPolicy{{ID: hexID(19, i), Name: "media pools", AlertType: "load_balancing_health_alert"}}
		}
	}
	srv, err := emulator.New(emulator.Options{Seed: data, Token: emulatorToken, AsOf: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	snap, err := Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 4)}, clientOptions(4))
	if err != nil || snap.Incomplete {
		t.Fatalf("incomplete %v: %v", snap != nil && snap.Incomplete, err)
	}
	sameSnapshot(t, &inventory.Snapshot{Accounts: snap.Accounts}, &inventory.Snapshot{Accounts: srv.Snapshot().Accounts})
	read := 0
	for _, a := range snap.Accounts {
		read += len(a.AccessApps) + len(a.NotificationPolicies)
	}
	gets := 0
	for _, r := range srv.Requests() {
		if r.Method == http.MethodGet && (strings.HasSuffix(r.Path, "/access/apps") || strings.HasSuffix(r.Path, "/alerting/v3/policies")) {
			gets++
		}
	}
	if read != 2 || gets != 2 {
		t.Errorf("%d objects read with %d requests, want Acme's application and Globex's policy with 2", read, gets)
	}
}
