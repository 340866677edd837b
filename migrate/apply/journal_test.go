package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// journaled is an account applied with --keep-old semantics through a journal, made once:
// the tests below edit copies of its journal.
var journaled struct {
	once sync.Once
	data []byte
	url  string
}

// journalBytes returns the journal of a demo apply (the account served only for it).
func journalBytes(t *testing.T) ([]byte, string) {
	t.Helper()
	journaled.once.Do(func() {
		a := serve(t, seed.Demo(), emulator.Options{})
		p, before := a.plan()
		path := filepath.Join(t.TempDir(), "journal")
		j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
		if err != nil {
			t.Fatal(err)
		}
		a.run(p, before, apply.Options{Journal: j, KeepOld: true})
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		journaled.data, _ = os.ReadFile(path)
		journaled.url = a.client.BaseURL()
	})
	if journaled.data == nil {
		t.Fatal("no journal was made")
	}
	return bytes.Clone(journaled.data), journaled.url
}

// lines splits a journal into its lines, newlines kept.
func lines(data []byte) [][]byte { return bytes.SplitAfter(data, []byte("\n")) }

// editHeader replaces the first old in the header's plan (or snapshot) with repl.
func editHeader(t *testing.T, data []byte, member, old, repl string) []byte {
	t.Helper()
	ls := lines(data)
	h := ls[0]
	plan, snap := bytes.Index(h, []byte(`"plan":`)), bytes.Index(h, []byte(`"snapshot":`))
	lo, hi := plan, snap
	if member == "snapshot" {
		lo, hi = snap, len(h)
	}
	i := bytes.Index(h[lo:hi], []byte(old))
	if plan < 0 || snap < plan || i < 0 {
		t.Fatalf("no %s in the header's %s", old, member)
	}
	ls[0] = append(append(append([]byte{}, h[:lo+i]...), repl...), h[lo+i+len(old):]...)
	return bytes.Join(ls, nil)
}

// v1Journal is the journal in the format of the previous version: no digests, no seq.
func v1Journal(t *testing.T, data []byte) []byte {
	t.Helper()
	var h map[string]json.RawMessage
	if err := json.Unmarshal(lines(data)[0], &h); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"format": apply.JournalFormat, "version": 1, "plan": h["plan"], "snapshot": h["snapshot"]})
	return append(line, []byte("\n"+`{"event":"begin","scope":"zone","id":"z","step":"s1"}`+"\n")...)
}

// TestLoadJournalRefusesWhatItDidNotWrite: a journal whose header or lines were edited,
// reordered, removed or repeated, or written by an older sunset, is refused with what and
// where; the untouched one loads.
func TestLoadJournalRefusesWhatItDidNotWrite(t *testing.T) {
	data, _ := journalBytes(t)
	if n := len(lines(data)); n < 8 {
		t.Fatalf("the journal has %d lines; the cases need more", n)
	}
	swap := func(i, j int) []byte {
		ls := lines(data)
		ls[i], ls[j] = ls[j], ls[i]
		return bytes.Join(ls, nil)
	}
	cut := func(i int) []byte {
		ls := lines(data)
		return bytes.Join(append(ls[:i:i], ls[i+1:]...), nil)
	}
	dup := func(i int) []byte {
		ls := lines(data)
		return bytes.Join(append(ls[:i+1:i+1], ls[i:]...), nil)
	}
	editLine := func(i int) []byte {
		ls := lines(data)
		var e map[string]any
		if err := json.Unmarshal(ls[i], &e); err != nil {
			t.Fatal(err)
		}
		e["reason"] = "edited"
		line, _ := json.Marshal(e)
		ls[i] = append(line, '\n')
		return bytes.Join(ls, nil)
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"untouched", "", data},
		{"edited header plan", "plan in its header does not match its plan_sha256", editHeader(t, data, "plan", `"DELETE"`, `"GET"`)},
		{"edited header snapshot", "snapshot in its header does not match its snapshot_sha256", editHeader(t, data, "snapshot", `"paused":false`, `"paused":true`)},
		{"edited header accounts", "header names accounts", bytes.Replace(data, []byte(`"accounts":["`), []byte(`"accounts":["x`), 1)},
		{"reordered lines", "line 3 holds entry 3 where entry 2 belongs", swap(2, 3)},
		{"a line removed", "line 3 holds entry 3 where entry 2 belongs", cut(2)},
		{"a line repeated", "line 4 holds entry 2 where entry 3 belongs", dup(2)},
		{"a line edited", "line 4 does not follow line 3", editLine(2)},
		{"a line garbled", "line 2 is not a journal entry", append(append(bytes.Clone(lines(data)[0]), `{"seq":1,"ev`...), lines(data)[1]...)},
		{"an older version", "written by an older sunset (journal version 1", v1Journal(t, data)},
		{"empty", "empty", nil},
		{"header cut short", "header line is cut short", lines(data)[0][:len(lines(data)[0])-1]},
		{"half a header", "header line is cut short", lines(data)[0][:100]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := apply.LoadJournal(path)
			if tc.want == "" {
				if err != nil || l.Entries != int64(len(lines(data))-2) {
					t.Fatalf("LoadJournal: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("LoadJournal: %v; want an error naming %s and saying %q", err, path, tc.want)
			}
			if _, _, err := apply.AppendJournal(path); err == nil {
				t.Fatal("AppendJournal opened what LoadJournal refuses")
			}
		})
	}
}

// TestCutShortLastLineResumes: a last line without its newline (a kill mid-write) is
// dropped, and the chain goes on from the last whole line.
func TestCutShortLastLineResumes(t *testing.T) {
	data, _ := journalBytes(t)
	whole := int64(len(lines(data)) - 2)
	path := filepath.Join(t.TempDir(), "journal")
	if err := os.WriteFile(path, append(data, `{"seq":`+fmt.Sprint(whole+1)+`,"prev":"ab`...), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := apply.LoadJournal(path); err != nil || l.Entries != whole {
		t.Fatalf("LoadJournal of a cut-short journal: %v", err)
	}
	j, l, err := apply.AppendJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Done()) == 0 {
		t.Fatal("the journal's done steps were not read")
	}
	if err := j.Record(apply.Entry{Event: apply.EventStopped, Scope: "zone", ID: "z", Step: "s"}); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	l, err = apply.LoadJournal(path)
	if err != nil || l.Entries != whole+1 {
		t.Fatalf("after the append: %v (%d entries, want %d)", err, l.Entries, whole+1)
	}
	got, _ := os.ReadFile(path)
	if !bytes.HasPrefix(got, data) || !bytes.Contains(got[len(data):], []byte(fmt.Sprintf(`"seq":%d,`, whole+1))) {
		t.Fatalf("the entry appended is not the whole line after the last whole one:\n%s", got[len(data):])
	}
}

// TestJournalHasOneWriter: while a run holds a journal, another that would write it is
// refused, naming the holder; once it is closed, the journal loads and can be appended to.
func TestJournalHasOneWriter(t *testing.T) {
	data, _ := journalBytes(t)
	path := filepath.Join(t.TempDir(), "journal")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	first, _, err := apply.AppendJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = apply.AppendJournal(path)
	var lockErr *apply.LockError
	if !errors.As(err, &lockErr) || lockErr.Holder == nil || lockErr.Holder.PID != os.Getpid() {
		t.Fatalf("a second writer: %v; want a LockError naming this process", err)
	}
	if want := fmt.Sprintf("journal %s is in use by pid %d on host ", path, os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("%v; want it to say %q", err, want)
	}
	if err := first.Record(apply.Entry{Event: apply.EventStopped, Scope: "zone", ID: "z", Step: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, l, err := apply.AppendJournal(path)
	if err != nil || l.Entries != int64(len(lines(data))-1) {
		t.Fatalf("after the first closed: %v", err)
	}
	_ = second.Close()
}

// TestCheckBinding: a resume or rollback is refused against another API, and with
// credentials that do not reach an account of the journal's plan.
func TestCheckBinding(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	other := serve(t, seed.Demo(), emulator.Options{})
	g := *p
	g.Accounts = append(append([]migrate.AccountPlan{}, p.Accounts...), migrate.AccountPlan{AccountID: "0000ghost"})
	ghost := &g
	for _, tc := range []struct {
		name   string
		plan   *migrate.Plan
		client *cfapi.Client
		want   []string
	}{
		{"its own API and credentials", p, a.client, nil},
		{"another API", p, other.client, []string{a.client.BaseURL(), other.client.BaseURL()}},
		{"an account the credentials do not reach", ghost, a.client, []string{"account 0000ghost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			j, err := apply.CreateJournal(path, tc.plan, before, a.client.BaseURL())
			if err != nil {
				t.Fatal(err)
			}
			_ = j.Close()
			l, err := apply.LoadJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			writes, otherTotal := a.writes(), other.srv.Stats().Total
			err = l.CheckBinding(context.Background(), tc.client)
			var bindErr *apply.BindingError
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("CheckBinding: %v", err)
			case tc.want != nil && !errors.As(err, &bindErr):
				t.Fatalf("CheckBinding: %v; want a BindingError", err)
			case a.writes() != writes || other.srv.Stats().Total != otherTotal:
				t.Fatal("CheckBinding wrote, or sent a request to another API")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v; want it to name %s", err, w)
				}
			}
		})
	}
}

// TestJournalLockNotThroughLinks: a symbolic link where the lock file goes is refused, and
// what it points to is left alone.
func TestJournalLockNotThroughLinks(t *testing.T) {
	data, _ := journalBytes(t)
	dir := t.TempDir()
	path, target := filepath.Join(dir, "journal"), filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, apply.LockPath(path)); err != nil {
		t.Fatal(err)
	}
	_, _, err := apply.AppendJournal(path)
	var lockErr *apply.LockError
	if !errors.As(err, &lockErr) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("AppendJournal with a link as its lock file: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep\n" {
		t.Fatalf("the link's target was written: %q", got)
	}
}
