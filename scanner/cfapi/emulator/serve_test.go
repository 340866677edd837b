package emulator

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startServe runs Serve on a loopback listener and returns its address and a stop function
// that waits for a clean shutdown.
func startServe(t *testing.T, opts Options) (string, *Server, func()) {
	t.Helper()
	if opts.Token == "" {
		opts.Token = testToken
	}
	if opts.Seed == nil {
		opts.Seed = testSeed()
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, srv) }()
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not stop")
		}
	}
	return ln.Addr().String(), srv, stop
}

// rawExchange writes raw bytes on one connection and reads responses until the server closes
// it or n responses have arrived. It writes while it reads, as a client would: the server may
// answer and close before it has read everything (then the rest of the write fails).
func rawExchange(t *testing.T, addr, raw string, n int) []*http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan struct{})
	defer func() {
		_ = conn.Close()
		<-wrote
	}()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		defer close(wrote)
		_, _ = io.WriteString(conn, raw)
	}()
	br := bufio.NewReader(conn)
	var out []*http.Response
	for len(out) < n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			break
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		out = append(out, resp)
	}
	return out
}

func envelopeOf(t *testing.T, resp *http.Response) Envelope {
	t.Helper()
	var env Envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatalf("not an envelope: %v", err)
	}
	return env
}

const teClRequest = "POST /client/v4/zones/" + "%s" + "/filters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken +
	"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n" +
	"2a\r\n[{\"expression\":\"ip.src eq 198.51.100.60\"}]\r\n0\r\n\r\n"

// TestTransferEncodingWithContentLength sends raw requests to Serve: one carrying both
// headers is declined with a 400 envelope and the connection closed (from 2023-07-01), and
// keep-alive neighbours are answered normally and in order.
func TestTransferEncodingWithContentLength(t *testing.T) {
	tests := []struct {
		name     string
		asOf     string
		raw      string
		statuses []int
		created  int // filters created on the zone
	}{
		{name: "declined alone", asOf: "2025-01-01",
			raw: strings.Replace(teClRequest, "%s", freeZone, 1), statuses: []int{400}},
		{name: "chunked request then a declined one on the same connection", asOf: "2025-01-01",
			raw: "POST /client/v4/zones/" + freeZone + "/filters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken +
				"\r\nTransfer-Encoding: chunked\r\n\r\n2a\r\n[{\"expression\":\"ip.src eq 198.51.100.61\"}]\r\n0\r\n\r\n" +
				"GET /client/v4/zones/" + freeZone + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\nContent-Length: 0\r\n\r\n" +
				strings.Replace(teClRequest, "%s", freeZone, 1),
			statuses: []int{200, 200, 400}, created: 1},
		{name: "headers in any case", asOf: "2025-01-01",
			raw: strings.NewReplacer("%s", freeZone, "Transfer-Encoding", "transfer-encoding", "Content-Length", "CONTENT-LENGTH").Replace(teClRequest), statuses: []int{400}},
		{name: "before 2023-07-01 the request is served", asOf: "2023-06-30",
			raw: strings.Replace(teClRequest, "%s", freeZone, 1), statuses: []int{200}, created: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr, srv, stop := startServe(t, Options{AsOf: day(tc.asOf)})
			defer stop()
			// One more response than expected after a refusal, to see the connection close;
			// a served request leaves it open.
			want := len(tc.statuses)
			if tc.statuses[want-1] == 400 {
				want++
			}
			resps := rawExchange(t, addr, tc.raw, want)
			if len(resps) != len(tc.statuses) {
				t.Fatalf("%d responses, want %d", len(resps), len(tc.statuses))
			}
			for i, resp := range resps {
				if resp.StatusCode != tc.statuses[i] {
					t.Errorf("response %d: status %d, want %d", i, resp.StatusCode, tc.statuses[i])
				}
				env := envelopeOf(t, resp)
				if resp.StatusCode == 400 {
					if env.Success || len(env.Errors) != 1 || env.Errors[0].Code != CodeBadHeaders || !strings.Contains(env.Errors[0].Message, "Transfer-Encoding") {
						t.Errorf("declined envelope %+v", env)
					}
					if !resp.Close {
						t.Errorf("a declined request must close the connection")
					}
				}
			}
			filters := 0
			for _, z := range srv.Snapshot().Zones {
				if z.Zone.ID == freeZone {
					filters = len(z.Filters)
				}
			}
			if filters != tc.created {
				t.Errorf("%d filters created, want %d (a declined request must not reach the handler)", filters, tc.created)
			}
			if st := srv.Stats(); tc.statuses[len(tc.statuses)-1] == 400 && st.Declined != 1 {
				t.Errorf("Stats.Declined = %d", st.Declined)
			}
		})
	}
}

// TestDeclineHeaderCannotBeForged checks that a client sending the internal marker header
// gets an ordinary answer.
func TestDeclineHeaderCannotBeForged(t *testing.T) {
	h := newHarness(t, Options{})
	r := h.doWith("GET", "/zones/"+freeZone, nil, func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set(declinedHeader, "guess")
	})
	if r.status != 200 {
		t.Errorf("forged marker: %d", r.status)
	}
}

// TestServeShutsDown checks that Serve returns nil when its context ends and that a client
// talking to it through net/http works.
func TestServeShutsDown(t *testing.T) {
	addr, _, stop := startServe(t, Options{AsOf: day("2025-01-01")})
	req, _ := http.NewRequest("GET", "http://"+addr+BasePath+"/zones", nil)
	req.Header.Set("X-Auth-Email", "nobody@example.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("status %d", resp.StatusCode)
	}
	stop()
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("still listening after shutdown")
	}
}
