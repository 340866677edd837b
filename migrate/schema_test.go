package migrate_test

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestPlanCallsFollowTheAPISchemas checks every call a plan holds, automatic or manual,
// against the API's public OpenAPI description (the corpus's openapi_plan_ops.json, snapshot
// 2024-08-06): the method and path are an operation of the API, and the body of every write
// validates against the operation's request schema. The plans are the demo's (before and
// after the end of life of the settings, so every kind of step appears), the generator's
// accounts (every plan level, blockers included) and the realworld fixtures'. Known stale
// points of the snapshot are patched where the document is loaded, and listed here:
// rulesets_RuleAction's pattern ^[a-z]+$ rejects managed_challenge and js_challenge, and
// rulesets_Rule lacks ratelimit; both exist in the current API.
func TestPlanCallsFollowTheAPISchemas(t *testing.T) {
	t.Parallel() // one of the package's slowest: it overlaps the others
	doc := planOpsDoc(t)
	if doc == nil {
		t.Skip("SUNSET_CORPUS is not set: the API's OpenAPI description is read from the corpus at test time only")
	}
	patches := strings.Join(doc.Patches(), "\n")
	for _, want := range []string{"rulesets_RuleAction", "rulesets_Rule: ratelimit"} {
		if !strings.Contains(patches, want) {
			t.Errorf("the snapshot's known stale point %q was not patched; patches:\n%s", want, patches)
		}
	}
	t.Logf("stale points of the snapshot, patched:\n%s", patches)

	plans := map[string]*migrate.Plan{}
	for _, asOf := range []time.Time{goldenAsOf, migratedAsOf} {
		day := asOf.Format(time.DateOnly)
		plans["demo "+day], _ = planOf(seed.Demo(), asOf)
		plans["generated "+day], _ = planOf(seed.Generate(300, 5), asOf)
		plans["migratable "+day], _ = planOf(seed.GenerateMigratable(100, 5), asOf)
	}
	plans["unread DNS settings"], _ = planOf(unreadDNSSettings(), migratedAsOf)
	for name, p := range realworldPlans(t) {
		plans["realworld "+name] = p
	}
	ops, writes := map[string]bool{}, 0
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, st := range plans[name].Steps() {
			if st.Method == "" {
				continue
			}
			op, err := doc.Operation(st.Method, st.Path)
			if err != nil {
				t.Errorf("%s: step %s: %s %s is not an operation of the API: %v", name, st.ID, st.Method, st.Path, err)
				continue
			}
			ops[op.String()] = true
			if st.Method == "GET" || (st.Method == "DELETE" && len(st.Body) == 0) {
				// The snapshot marks the request bodies of DELETE operations required; the API
				// takes none (the SDKs send none, and the recorded deletions carry none).
				continue
			}
			writes++
			if err := doc.ValidateRequest(st.Method, st.Path, st.Body); err != nil {
				var ve *openapi.ValidationError
				if !errors.As(err, &ve) {
					t.Errorf("%s: step %s: %v", name, st.ID, err)
					continue
				}
				t.Errorf("%s: step %s (%s %s) has a body the API refuses: %v\nbody: %s", name, st.ID, st.Method, st.Path, err, st.Body)
			}
		}
	}
	list := make([]string, 0, len(ops))
	for op := range ops {
		list = append(list, op)
	}
	sort.Strings(list)
	t.Logf("%d plans, %d writes validated, %d operations used:\n%s", len(plans), writes, len(ops), strings.Join(list, "\n"))
	if len(ops) < 17 {
		t.Errorf("only %d operations used; the plans should reach every kind of step", len(ops))
	}
}

// realworldPlans builds the plans of the realworld fixture sets, as the golden test does.
func realworldPlans(t *testing.T) map[string]*migrate.Plan {
	t.Helper()
	out := map[string]*migrate.Plan{}
	for name, snap := range realworldSnapshots(t, corpus(t)) {
		p, _ := planOf(snap, goldenAsOf)
		out[name] = p
	}
	return out
}

// unreadDNSSettings is an account and a zone whose DNS settings could not be read, so their
// plans write the values of the deprecated fields through the DNS settings endpoints.
func unreadDNSSettings() *inventory.Snapshot {
	acct := inventory.AccountInventory{Account: inventory.Account{ID: "01a7362d577a6c3019a474fd6f485823", Name: "Unread",
		Settings: &inventory.AccountSettings{DefaultNameservers: "custom.tenant"}}}
	z := inventory.ZoneInventory{Zone: inventory.Zone{ID: "023e105f4ecef8ad9ca31a8372d0c353", Name: "example.com",
		Account: inventory.Ref{ID: acct.Account.ID, Name: acct.Account.Name}, Plan: inventory.ZonePlan{LegacyID: inventory.PlanPro}}}
	z.Settings = []inventory.Setting{{ID: "cname_flattening", Value: json.RawMessage(`"flatten_all"`)}}
	z.LegacyDNSSettings = []inventory.Setting{{ID: "use_apex_ns", Value: json.RawMessage(`"on"`)}}
	return &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Accounts: []inventory.AccountInventory{acct}, Zones: []inventory.ZoneInventory{z}}
}

// TestSchemaRefusesWhatPlansUsedToSend: the calls the plans sent before they were checked
// against the API's description are refused by it, so the check above can fail.
func TestSchemaRefusesWhatPlansUsedToSend(t *testing.T) {
	doc := planOpsDoc(t)
	if doc == nil {
		t.Skip("SUNSET_CORPUS is not set: the API's OpenAPI description is read from the corpus at test time only")
	}
	const zone = "/zones/023e105f4ecef8ad9ca31a8372d0c353"
	for _, c := range []struct{ what, method, path, body string }{
		{"SRV PATCH without type and ttl", "PATCH", zone + "/dns_records/372e67954025e0ba6aaa6d586b9e0b59",
			`{"name":"_sip._tcp.example.com","data":{"priority":10,"weight":5,"port":5060,"target":"sip.example.com"}}`},
		{"a rate limiting rule action outside the enum", "PUT", zone + "/rulesets/phases/http_ratelimit/entrypoint",
			`{"rules":[{"action":"ban","expression":"true"}]}`},
	} {
		if err := doc.ValidateRequest(c.method, c.path, []byte(c.body)); err == nil {
			t.Errorf("%s: the description accepts %s %s %s", c.what, c.method, c.path, c.body)
		} else {
			t.Logf("%s: %v", c.what, err)
		}
	}
}
