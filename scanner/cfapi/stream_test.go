package cfapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// refEnvelope is the envelope as the client read it before bodies were streamed: the whole
// body through json.Unmarshal. decodeStream must agree with it on every input
// (FuzzDecodeStream).
type refEnvelope struct {
	Result     json.RawMessage `json:"result"`
	Success    *bool           `json:"success"`
	Errors     json.RawMessage `json:"errors"`
	Messages   json.RawMessage `json:"messages"`
	ResultInfo *ResultInfo     `json:"result_info"`
}

// refParse is the former parseEnvelope.
func refParse(body []byte) (w refEnvelope, env envelope, ok bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' {
		return w, env, false
	}
	if json.Unmarshal(t, &w) != nil {
		return refEnvelope{}, env, false
	}
	if w.Result == nil && w.Success == nil && w.Errors == nil {
		return refEnvelope{}, env, false
	}
	env = envelope{Success: w.Success, ResultInfo: w.ResultInfo}
	_ = decodeDetails(w.Errors, &env.Errors)
	_ = decodeDetails(w.Messages, &env.Messages)
	return w, env, true
}

// checkAgainstRef decodes body both ways, the result into a fresh value of out's type.
func checkAgainstRef[T any](t *testing.T, body []byte) {
	var got T
	d := decodeStream(bytes.NewReader(body), &got)
	w, env, ok := refParse(body)
	if empty := len(bytes.TrimSpace(body)) == 0; d.empty != empty {
		t.Fatalf("empty %v, want %v", d.empty, empty)
	}
	if d.isEnv != ok {
		t.Fatalf("envelope %v, want %v", d.isEnv, ok)
	}
	if !ok {
		return
	}
	if !reflect.DeepEqual(d.env, env) {
		t.Fatalf("envelope %+v\nwant %+v", d.env, env)
	}
	kind := resultValue
	switch {
	case w.Result == nil:
		kind = resultAbsent
	case string(w.Result) == "null":
		kind = resultNull
	}
	if d.result != kind {
		t.Fatalf("result kind %v, want %v", d.result, kind)
	}
	if kind != resultValue {
		return
	}
	var want T
	werr := json.Unmarshal(w.Result, &want)
	if (d.resultErr != nil) != (werr != nil) {
		t.Fatalf("result error %v, want %v", d.resultErr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("result %#v\nwant %#v", got, want)
	}
}

// FuzzDecodeStream: the streaming envelope decoder (untrusted input: every API answer)
// agrees with decoding the whole body, for a list result (element by element) and any other
// (one value), and never panics.
func FuzzDecodeStream(f *testing.F) {
	for _, s := range []string{
		`{"result":[{"id":"a"},{"id":"b"}],"success":true,"errors":[],"messages":[],"result_info":{"page":1,"per_page":2,"count":2}}`,
		`{"result":null,"success":true}`, `{"success":false,"errors":[{"code":"10000","message":"auth"}],"messages":null}`,
		`{"result":{"id":"z"},"success":true}`, ` {"Result":[1,"x",{}],"SUCCESS":true} `, `{"result":[1],"result":[2,3]}`,
		`{"result":"s","success":true}`, `{"result":{"a":[1,{"b":null}]},"x":[{},[]]}`, `not json`, ``, "\f{\"errors\":[]}\u00a0",
		`{"result":[1,2`, `{"result":[],"success":"yes"}`, `{"errors":[1,"m",{"code":1.5}]}`, `{"success":true}{}`,
		`{"result_info":{"page":"1"},"result":[]}`, `{"result":[{"id":1}],"success":false,"errors":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAgainstRef[[]any](t, body)
		checkAgainstRef[[]map[string]string](t, body)
		checkAgainstRef[any](t, body)
		checkAgainstRef[map[string]any](t, body)
	})
}

// FuzzPagedBody: whatever one body a server answers to every page of a list (untrusted
// result_info included), the listing ends after at most two requests: the second page is
// the first again (repeated), empty, or out of order.
func FuzzPagedBody(f *testing.F) {
	for _, s := range []string{
		`{"result":[{"id":"a"}],"success":true,"result_info":{"page":1,"per_page":1,"count":1,"total_count":1000000000,"total_pages":1000000000}}`,
		`{"result":[{"id":"a"}],"success":true,"result_info":{"per_page":1,"count":1}}`,
		`{"result":[],"success":true,"result_info":{"page":1,"total_pages":-5}}`,
		`{"result":[{"id":"a"},{"id":"a"}],"success":true,"result_info":{"page":0,"per_page":-1,"count":9223372036854775807}}`,
		`{"result":null,"success":true,"result_info":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var n atomic.Int64
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n.Add(1)
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		c, _ := testClient(t, "https://api.example", func(c *Config) {
			c.HTTPClient = &http.Client{Transport: rt}
			c.MaxRetries = -1
		})
		_, _ = c.ListFirewallRules(context.Background(), "z1")
		if got := n.Load(); got > 2 {
			t.Fatalf("%d requests for one repeated body", got)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzRedactedExcerpt: an error excerpt never holds the whole secret, nor more than its
// first 3 characters at the cut, wherever the secret stands in the body.
func FuzzRedactedExcerpt(f *testing.F) {
	f.Add(strings.Repeat("x", 190), "tail", "tok_SECRET_0123456789abcdefghij", true)
	f.Add("  \n", strings.Repeat("y", 300), "k3y", false)
	f.Fuzz(func(t *testing.T, before, after, secret string, whole bool) {
		if len(secret) < 4 || strings.ContainsAny(secret, " \t\r\n") {
			return
		}
		body := []byte(before + secret + after)
		got := redactedExcerpt(body, whole, []string{secret})
		if strings.Contains(got, secret) {
			t.Fatalf("secret in %q", got)
		}
		if strings.Contains(before+after, secret[:4]) || strings.Contains(secret[1:], secret[:4]) {
			return // the body itself holds the secret's start elsewhere
		}
		if trimmed := strings.TrimSuffix(got, "..."); trimmed != got && strings.HasSuffix(trimmed, secret[:4]) {
			t.Fatalf("the cut leaves the secret's start in %q", got)
		}
	})
}

// hugeListServer streams a list body of size bytes to every request, never holding it.
func hugeListServer(tb testing.TB, size int) (string, *atomic.Int64) {
	var sent atomic.Int64
	elem := []byte(`{"id":"0123456789abcdef0123456789abcdef","name":"` + strings.Repeat("n", 180) + `.example"},`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n, _ := io.WriteString(w, `{"success":true,"errors":[],"messages":[],"result_info":{"page":1,"per_page":50,"count":50},"result":[`)
		for written := n; written < size; written += len(elem) {
			if _, err := w.Write(elem); err != nil {
				return // the client stopped reading
			}
			sent.Add(int64(len(elem)))
		}
		_, _ = io.WriteString(w, `{"id":"last"}]}`)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL, &sent
}

// peakHeap runs f while sampling the heap in use, and returns the peak above the start.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak - base
}

// TestBodyBudgetBoundsMemory: 8 workers against a server that answers every list with a
// 32 MiB body. Each worker once buffered its whole body (up to 256 MiB: 4.1 GB at 8
// workers, issue 12, item 7a); now bodies stream under one budget shared by all workers (2
// MiB here), each call fails with a *BodyTooLargeError once its body passes what one body
// may take, without retries, and the heap stays within a small multiple of the budget, far
// below the 256 MiB the 8 bodies would take whole.
func TestBodyBudgetBoundsMemory(t *testing.T) {
	const budget = 2 << 20
	base, sent := hugeListServer(t, 32<<20)
	// No client timeout: under -race, waiting for the one body that may grow takes a while.
	c, _ := testClient(t, base, func(c *Config) { c.BodyBudget = budget; c.HTTPClient = &http.Client{} })
	var errs [8]error
	peak := peakHeap(func() {
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = c.ListZones(context.Background(), ZoneFilter{})
			}()
		}
		wg.Wait()
	})
	for i, err := range errs {
		var tooLarge *BodyTooLargeError
		var e *Error
		if !errors.As(err, &tooLarge) || !errors.As(err, &e) || e.Attempts != 1 || e.Status != 200 {
			t.Fatalf("worker %d: %v; want one attempt failing with *BodyTooLargeError", i, err)
		}
		if tooLarge.Budget != budget || tooLarge.Limit > budget {
			t.Errorf("limit %d of budget %d", tooLarge.Limit, tooLarge.Budget)
		}
	}
	t.Logf("heap peak %.1f MiB above the start for 8 workers reading 32 MiB bodies under a 2 MiB budget (server sent %.0f MiB before the client stopped)",
		float64(peak)/(1<<20), float64(sent.Load())/(1<<20))
	if peak > 48<<20 {
		t.Errorf("heap peak %.1f MiB above the start; want it bounded by the 2 MiB budget (within 48 MiB)", float64(peak)/(1<<20))
	}
	if st := c.Stats(); st.Requests != 8 || st.Retries != 0 {
		t.Errorf("stats %+v: a body over the budget is not retried", st)
	}
}

// TestBodyBudgetSharedFairly: bodies within the budget all decode, whatever their number,
// though only one at a time may go past its slot.
func TestBodyBudgetSharedFairly(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		zones := make([]map[string]any, 3000) // about 150 KiB, past a slot of a 1 MiB budget
		for i := range zones {
			zones[i] = map[string]any{"id": fmt.Sprint("z", i), "name": fmt.Sprint("zone", i, ".example")}
		}
		okEnvelope(w, zones, map[string]any{"page": 1, "per_page": 50, "count": 3000, "total_pages": 1})
	})
	c, _ := testClient(t, srv.URL, func(c *Config) { c.BodyBudget = 1 << 20 })
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			zones, err := c.ListZones(context.Background(), ZoneFilter{})
			if err != nil || len(zones) != 3000 || zones[2999].ID != "z2999" {
				t.Errorf("%d zones, %v", len(zones), err)
			}
		}()
	}
	wg.Wait()
	if n := len(c.budget.slots) + len(c.budget.big); n != 0 {
		t.Errorf("%d budget tokens still held", n)
	}
}

// BenchmarkBodyMemory: 8 workers each list zones from a server answering 300 MiB bodies,
// with the default client (its default budget): it reports the heap peak above the start.
// Before the budget each worker buffered up to 256 MiB.
//
//	go test -run '^$' -bench BodyMemory -benchtime 1x ./scanner/cfapi
func BenchmarkBodyMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		base, _ := hugeListServer(b, 300<<20)
		c, err := New(Config{BaseURL: base, Credentials: TokenCredentials(testToken), MaxRetries: -1})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		peak := peakHeap(func() {
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _ = c.ListZones(context.Background(), ZoneFilter{})
				}()
			}
			wg.Wait()
		})
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
	}
}
