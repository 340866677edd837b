//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// applyEmulator serves the demo account as of a day past every end of life; tests kill an
// apply at a chosen write by holding that write's answer (emulatortest).
func applyEmulator(t *testing.T) (string, *emulatortest.Watched) {
	t.Helper()
	return serveEmulator(t, emulator.Options{
		AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Token: seed.DemoToken, Rand: 5,
	})
}

func applyArgs(journal string, extra ...string) []string {
	return append([]string{"apply", "--rps", "0", "--as-of", "2026-11-24", "--retries", "0", "--workers", "2", "--yes", "--journal", journal}, extra...)
}

// TestKilledApplyResumes SIGKILLs `sunset apply --yes` at random writes (seeded, so a
// failure can be replayed), resumes each from its journal, and compares the end state with
// an uninterrupted apply's: the same rules, paused and deleted objects and settings, and no
// rule added twice. Resuming the finished journal then sends nothing but the listing of the
// accounts that checks the credentials reach the journal's.
func TestKilledApplyResumes(t *testing.T) {
	t.Parallel()
	api, srv := applyEmulator(t)
	p := startSunset(t, api, applyArgs(filepath.Join(t.TempDir(), "want.jsonl"))...)
	if code := p.waitExit(t); code != cli.ExitOK {
		t.Fatalf("uninterrupted apply: exit %d\n%s", code, p.stderr.String())
	}
	want, writes := endState(srv.Server), srv.Stats().Writes
	rng := rand.New(rand.NewSource(20261125))
	for i := 0; i < 3; i++ {
		at := 1 + rng.Intn(writes-1)
		// Independent runs, each on its own emulator: in parallel.
		t.Run(fmt.Sprintf("%d-at-write-%d", i, at), func(t *testing.T) {
			t.Parallel()
			resumeAfterKill(t, at, want)
		})
	}
}

// resumeAfterKill SIGKILLs an apply on its own emulator at write at, resumes it, compares
// the end state with want, and resumes the finished journal.
func resumeAfterKill(t *testing.T, at int, want string) {
	api, srv := applyEmulator(t)
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	m := srv.HoldWhen(emulatortest.Writes(at))
	p := startSunset(t, api, applyArgs(journal)...)
	select {
	case <-m.Reached():
	case <-p.done:
		t.Fatalf("the apply ended before write %d:\n%s", at, p.stderr.String())
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	m.Release()
	r := startSunset(t, api, "apply", "--resume", journal, "--yes", "--rps", "0", "--retries", "0")
	if code := r.waitExit(t); code != cli.ExitOK {
		t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
	}
	if got := endState(srv.Server); got != want {
		t.Fatalf("killed at write %d and resumed, the account differs from an uninterrupted apply's:\n%s\nwant:\n%s", at, got, want)
	}
	// Resuming a finished journal lists the accounts (the credentials reach the
	// journal's), reads back what it says was done, and writes nothing.
	done := srv.Stats().Writes
	r = startSunset(t, api, "apply", "--resume", journal, "--yes", "--rps", "0")
	if code := r.waitExit(t); code != cli.ExitOK || srv.Stats().Writes != done {
		t.Fatalf("resuming the finished journal: exit %d, %d writes", code, srv.Stats().Writes-done)
	}
}

// endState is what an apply changes, without the ids and versions the emulator assigns:
// per zone the entry points' rules in order (a rule added twice shows), the firewall rules
// with their paused state, filters, rate limits, overrides and settings; per account its
// bookmarks and pools, and the Access applications and notification policies the apply
// creates (the snapshot does not hold them; one made twice shows).
func endState(srv *emulator.Server) string {
	snap := srv.Snapshot()
	var b strings.Builder
	for _, z := range snap.Zones {
		fmt.Fprintf(&b, "zone %s\n", z.Zone.Name)
		for _, rs := range z.Rulesets {
			for _, r := range rs.Rules {
				fmt.Fprintf(&b, "  %s: %s %v %s %q %s\n", rs.Phase, r.Action, r.Enabled == nil || *r.Enabled, r.ActionParameters, r.Description, r.Expression)
			}
		}
		for _, r := range z.FirewallRules {
			fmt.Fprintf(&b, "  firewall rule %s paused=%v\n", r.ID, r.Paused)
		}
		for _, f := range z.Filters {
			fmt.Fprintf(&b, "  filter %s\n", f.ID)
		}
		for _, r := range z.RateLimits {
			fmt.Fprintf(&b, "  rate limit %s\n", r.ID)
		}
		for _, o := range z.WAFOverrides {
			fmt.Fprintf(&b, "  override %s\n", o.ID)
		}
		var settings []string
		for _, s := range z.Settings {
			settings = append(settings, s.ID+"="+string(s.Value))
		}
		sort.Strings(settings)
		fmt.Fprintf(&b, "  settings %s\n", strings.Join(settings, " "))
	}
	for _, a := range snap.Accounts {
		fmt.Fprintf(&b, "account %s: %d bookmarks, %d pools\n", a.Account.Name, len(a.AccessBookmarks), len(a.LoadBalancerPools))
		for _, p := range a.LoadBalancerPools {
			fmt.Fprintf(&b, "  pool %s email %q\n", p.Name, p.NotificationEmail)
		}
		apps, policies := srv.Replacements(a.Account.ID)
		for _, o := range contentLines(apps) {
			fmt.Fprintf(&b, "  access app %s\n", o)
		}
		for _, o := range contentLines(policies) {
			fmt.Fprintf(&b, "  notification policy %s\n", o)
		}
	}
	return b.String()
}

// contentLines renders objects one per line, sorted, without the members the emulator
// assigns (ids and timestamps).
func contentLines(objs []map[string]any) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		for _, k := range []string{"id", "aud", "created", "created_at", "updated_at", "modified"} {
			delete(o, k)
		}
		raw, _ := json.Marshal(o)
		out[i] = string(raw)
	}
	sort.Strings(out)
	return out
}
