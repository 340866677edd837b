package emulatortest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

func watched(t *testing.T) (*Watched, string) {
	t.Helper()
	srv, err := emulator.New(emulator.Options{AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Token: seed.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	w := Wrap(srv)
	hs := httptest.NewServer(w)
	t.Cleanup(hs.Close)
	t.Cleanup(w.Close)
	return w, hs.URL + emulator.BasePath
}

func get(ctx context.Context, url string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/zones", nil)
	req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		err = resp.Body.Close()
	}
	return err
}

// TestHoldWhen: the answer that reaches a held mark does not come before Release, and the
// mark is reached once it is served; a mark already met is reached at once.
func TestHoldWhen(t *testing.T) {
	w, url := watched(t)
	if err := get(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	m := w.HoldWhen(Requests(2))
	answered := make(chan error, 1)
	go func() { answered <- get(context.Background(), url) }()
	<-m.Reached()
	select {
	case err := <-answered:
		t.Fatalf("the held answer came before Release (%v)", err)
	default:
	}
	if n := w.Stats().Total; n != 2 {
		t.Errorf("reached at %d requests, want 2", n)
	}
	m.Release()
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.When(Requests(2)).Reached():
	default:
		t.Error("a mark already met was not reached at once")
	}
}

// TestAbandoned: a client that cancels a held request abandons it, and the handler returns.
func TestAbandoned(t *testing.T) {
	w, url := watched(t)
	m := w.HoldWhen(Requests(1))
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() { answered <- get(ctx, url) }()
	<-m.Reached()
	cancel()
	<-m.Abandoned()
	if err := <-answered; err == nil {
		t.Error("a cancelled request got its answer")
	}
	if err := get(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	if n := w.Stats().Writes; n != 0 || !Writes(0)(w.Server) || Writes(1)(w.Server) {
		t.Errorf("writes %d", n)
	}
}
