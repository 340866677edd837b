package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// accountOf is the demo account holding the zone named.
func accountOf(t *testing.T, zone string) string {
	for _, z := range seed.Demo().Zones {
		if z.Zone.Name == zone {
			return z.Zone.Account.ID
		}
	}
	t.Fatalf("no demo zone %s", zone)
	return ""
}

// TestSelectionWithSnapshot: scan, plan, verify and apply honour --zone, --zone-filter and
// --account with --snapshot as they do live, and a selection the snapshot cannot meet is a
// usage error (exit 2), as it is live.
func TestSelectionWithSnapshot(t *testing.T) {
	snap := writeDemoSnapshot(t)
	shopAccount := accountOf(t, "shop.example")
	for _, sel := range [][]string{{"--zone", "shop.example"}, {"--zone-filter", "shop*"}, {"--account", shopAccount, "--zone", "shop.example"}} {
		t.Run(strings.Join(sel, " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plan")
			r := runSunset(t, nil, append([]string{"plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", dir, "--no-verify"}, sel...)...)
			if r.code != ExitOK {
				t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
			}
			p := readPlanJSON(t, filepath.Join(dir, "plan.json"))
			if len(p.Zones) != 1 || p.Zones[0].ZoneName != "shop.example" {
				t.Fatalf("plan: zones %v, want shop.example alone", zoneNames(p))
			}
			r = runSunset(t, nil, append([]string{"apply", "--snapshot", snap, "--as-of", "2024-05-01", "--rps", "0"}, sel...)...)
			scopes := regexp.MustCompile(`(?m)^(zone|account) .+: (\d+ requests? for \d+ steps?|nothing to send)$`)
			if r.code != ExitOK || !strings.Contains(r.stdout, "zone shop.example: ") || len(scopes.FindAllString(r.stdout, -1)) != 1+accountsNamed(sel) {
				t.Fatalf("apply dry run: exit %d, want shop.example's steps alone\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			if r = runSunset(t, nil, append([]string{"scan", "--snapshot", snap, "--as-of", "2024-05-01", "--format", "json:" + out}, sel...)...); r.code != ExitFindings {
				t.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
			}
			rep := readReportFile(t, out)
			for _, f := range rep.Findings.Slice() {
				if f.ZoneName != "" && f.ZoneName != "shop.example" {
					t.Fatalf("scan: a finding of zone %s", f.ZoneName)
				}
			}
			r = runSunset(t, nil, append([]string{"verify", "--snapshot", snap, "--as-of", "2024-05-01", "--plan-in", filepath.Join(dir, "plan.json")}, sel...)...)
			if r.code != ExitOK {
				t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	for _, sel := range [][]string{{"--zone", "shop.exmaple"}, {"--zone-filter", "nothing-*"}, {"--account", "0123456789abcdef0123456789abcdef"}} {
		for _, cmd := range []string{"scan", "plan", "verify", "apply"} {
			t.Run(cmd+" "+strings.Join(sel, " "), func(t *testing.T) {
				args := []string{cmd, "--snapshot", snap, "--as-of", "2024-05-01"}
				if cmd == "plan" {
					args = append(args, "--out-dir", filepath.Join(t.TempDir(), "p"))
				}
				if r := runSunset(t, nil, append(args, sel...)...); r.code != ExitUsage {
					t.Fatalf("exit %d, want %d\n%s", r.code, ExitUsage, r.stderr)
				}
			})
		}
	}
}

func accountsNamed(sel []string) int { return strings.Count(strings.Join(sel, " "), "--account") }

func zoneNames(p *migrate.Plan) []string {
	var out []string
	for _, z := range p.Zones {
		out = append(out, z.ZoneName)
	}
	return out
}

// applyJSON is the scopes an apply --format json printed.
func applyJSON(t *testing.T, stdout string) []struct{ Scope, Name, Status string } {
	t.Helper()
	var out struct {
		Scopes []struct{ Scope, Name, Status string } `json:"scopes"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("apply output: %v\n%s", err, stdout)
	}
	return out.Scopes
}

// TestZoneSelectionNeverWritesAccountObjects: a live apply with a zone filter alone writes
// none of the account's objects (the notification policy, the pool, the Access
// applications) and says so; with the account named it does.
func TestZoneSelectionNeverWritesAccountObjects(t *testing.T) {
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, withAccount := range []bool{false, true} {
		t.Run(map[bool]string{false: "zone filter alone", true: "account named"}[withAccount], func(t *testing.T) {
			srv, base := startEmulator(t, emulator.Options{AsOf: day})
			args := []string{"apply", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--format", "json", "--journal", filepath.Join(t.TempDir(), "j"), "--zone-filter", "*.example*"}
			var accounts []string
			for _, a := range seed.Demo().Accounts {
				accounts = append(accounts, a.Account.ID)
				if withAccount {
					args = append(args, "--account", a.Account.ID)
				}
			}
			r := runSunset(t, demoEnv(), args...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			wrote := 0
			for _, id := range accounts {
				apps, policies := srv.Replacements(id)
				wrote += len(apps) + len(policies)
			}
			hasAccount := slices.ContainsFunc(applyJSON(t, r.stdout), func(s struct{ Scope, Name, Status string }) bool { return s.Scope == "account" })
			switch {
			case !withAccount && (wrote > 0 || hasAccount || !strings.Contains(r.stderr, "account scope(s) left out")):
				t.Fatalf("a zone filter alone: %d account objects written, account scopes run %t\n%s", wrote, hasAccount, r.stderr)
			case withAccount && (wrote == 0 || !hasAccount):
				t.Fatalf("accounts named: %d account objects written, account scopes run %t", wrote, hasAccount)
			}
		})
	}
}

// TestSelectionWithJournalAndPlanFile: --zone narrows --plan-in, --resume and --rollback to
// the zone's scope; the other zones are left as they are.
func TestSelectionWithJournalAndPlanFile(t *testing.T) {
	_, base, journal := appliedJournal(t) // --keep-old: created and paused, nothing deleted
	// The resume finishes shop.example (its deletions); the rollback undoes news.example.com.
	for _, tc := range []struct{ name, flag, zone string }{{"resume", "--resume", "shop.example"}, {"rollback", "--rollback", "news.example.com"}} {
		t.Run(tc.name, func(t *testing.T) {
			r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", tc.flag, journal, "--yes", "--format", "json", "--zone", tc.zone)
			scopes := applyJSON(t, r.stdout)
			if r.code != ExitOK || len(scopes) != 1 || scopes[0].Name != tc.zone {
				t.Fatalf("exit %d, scopes %+v, want %s's alone\n%s", r.code, scopes, tc.zone, r.stderr)
			}
		})
	}
	snap := filepath.Join(t.TempDir(), "snap.json")
	dir := filepath.Join(t.TempDir(), "plan")
	if r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--snapshot-out", snap, "--plan", dir, "--fail-on", "none"); r.code != ExitOK {
		t.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
	}
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--plan-in", filepath.Join(dir, "plan.json"), "--snapshot", snap, "--zone", "blog.example.org", "--format", "json")
	scopes := applyJSON(t, r.stdout)
	if r.code != ExitOK || len(scopes) != 1 || scopes[0].Name != "blog.example.org" {
		t.Fatalf("--plan-in: exit %d, scopes %+v, want blog.example.org's alone\n%s", r.code, scopes, r.stderr)
	}
}
