package emulator

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// getZone is a keep-alive GET of the free zone; smuggled is a request with both
// Transfer-Encoding and Content-Length that would create a filter if it reached the handler.
var (
	getZone  = "GET " + BasePath + "/zones/" + freeZone + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\n\r\n"
	smuggled = strings.Replace(teClRequest, "%s", freeZone, 1)
)

// filtersOf counts the filters of the free zone.
func filtersOf(srv *Server) int {
	for _, z := range srv.Snapshot().Zones {
		if z.Zone.ID == freeZone {
			return len(z.Filters)
		}
	}
	return 0
}

// TestKeepAliveServesManyRequests sends requests one at a time on one connection, waiting
// between them so that net/http's read of the idle connection is interrupted each time: every
// request is answered and none asks to close.
func TestKeepAliveServesManyRequests(t *testing.T) {
	addr, _, stop := startServe(t, Options{AsOf: day("2025-01-01")})
	defer stop()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	br := bufio.NewReader(conn)
	post := "POST " + BasePath + "/zones/" + freeZone + "/filters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken +
		"\r\nContent-Length: 2\r\n\r\n[]"
	chunked := "POST " + BasePath + "/zones/" + freeZone + "/filters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken +
		"\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n"
	for i, req := range []string{getZone, post, getZone, chunked, getZone, getZone} {
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: no response: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.Close {
			t.Errorf("request %d: the server asked to close the connection", i)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// TestKeepAliveClientReusesConnection checks the same through net/http's client: every
// request after the first rides the first connection.
func TestKeepAliveClientReusesConnection(t *testing.T) {
	addr, _, stop := startServe(t, Options{AsOf: day("2025-01-01")})
	defer stop()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for i := range 5 {
		reused := false
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", "http://"+addr+BasePath+"/zones", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if i > 0 && !reused {
			t.Errorf("request %d opened a new connection", i)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGuardRefusesSmuggling sends, on one connection, a first request and then a request
// with both Transfer-Encoding and Content-Length. Whatever the first request looks like, the
// second never reaches the handler: the guard either frames the first like net/http and
// declines the second (400), or refuses the first and closes the connection.
func TestGuardRefusesSmuggling(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("a", n) }
	longGet := func(headLen int) string {
		// The request line is not counted in net/http's header memory limit, so a long query
		// makes a head of any size net/http itself would accept.
		rest := " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\n\r\n"
		line := "GET " + BasePath + "/zones?q="
		return line + pad(headLen-len(line)-len(rest)) + rest
	}
	post := "POST " + BasePath + "/zones/" + freeZone + "/filters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\n"
	tests := []struct {
		name     string
		first    string
		statuses []int // responses on the connection, then it is closed
	}{
		{name: "a keep-alive request", first: getZone, statuses: []int{200, 400}},
		{name: "a head just under 1 MiB", first: longGet(maxHead - 10), statuses: []int{200, 400}},
		{name: "a head of exactly 1 MiB", first: longGet(maxHead), statuses: []int{200, 400}},
		{name: "a head just over 1 MiB", first: longGet(maxHead + 1), statuses: []int{431}},
		{name: "a head 1000 bytes over 1 MiB", first: longGet(maxHead + 1000), statuses: []int{431}},
		{name: "a head of 2 MiB", first: longGet(2 * maxHead), statuses: []int{431}},
		{name: "a head that ends LF CR LF", first: "GET " + BasePath + "/zones/" + freeZone + " HTTP/1.1\nHost: x\nAuthorization: Bearer " + testToken + "\n\r\n",
			statuses: []int{200, 400}},
		{name: "whitespace before the colon of Transfer-Encoding", first: post + "Transfer-Encoding : chunked\r\n\r\n", statuses: []int{400}},
		{name: "Transfer-Encoding on a folded line", first: post + "X-A: b\r\n Transfer-Encoding: chunked\r\n\r\n", statuses: []int{400}},
		{name: "a folded Transfer-Encoding value", first: post + "Transfer-Encoding:\r\n chunked\r\n\r\n", statuses: []int{400}},
		{name: "Transfer-Encoding on HTTP/1.0", first: strings.Replace(post, "HTTP/1.1", "HTTP/1.0", 1) +
			"Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n", statuses: []int{400, 400}},
		{name: "a chunk size net/http refuses", first: post + "Transfer-Encoding: chunked\r\n\r\n+2\r\n[]\r\n0\r\n\r\n", statuses: []int{413}},
		{name: "a chunk size line with a bare LF", first: post + "Transfer-Encoding: chunked\r\n\r\n2\n[]\r\n0\r\n\r\n", statuses: []int{413}},
		{name: "a trailer with a blank-looking folded line", first: post + "Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\nX-T: 1\r\n \r\n\r\n", statuses: []int{400, 400}},
		{name: "a Transfer-Encoding net/http does not support", first: post + "Transfer-Encoding: gzip, chunked\r\n\r\n", statuses: []int{501}},
		{name: "two Content-Length values", first: post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n[]", statuses: []int{400}},
		{name: "a Content-Length with a sign", first: post + "Content-Length: +2\r\n\r\n[]", statuses: []int{400}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr, srv, stop := startServe(t, Options{AsOf: day("2025-01-01")})
			defer stop()
			resps := rawExchange(t, addr, tc.first+smuggled, len(tc.statuses)+1)
			var got []int
			for _, r := range resps {
				got = append(got, r.StatusCode)
			}
			if len(got) != len(tc.statuses) {
				t.Fatalf("statuses %v, want %v", got, tc.statuses)
			}
			for i := range got {
				if got[i] != tc.statuses[i] {
					t.Errorf("statuses %v, want %v", got, tc.statuses)
					break
				}
			}
			if last := resps[len(resps)-1]; !last.Close && last.StatusCode >= 400 {
				t.Errorf("the refusal %d does not close the connection", last.StatusCode)
			}
			if last := resps[len(resps)-1]; last.StatusCode == 431 {
				if env := envelopeOf(t, last); env.Success || len(env.Errors) != 1 || env.Errors[0].Code != CodeBadHeaders {
					t.Errorf("431 envelope %+v", env)
				}
				if log := srv.Requests(); len(log) != 1 || log[0].Fault != "head_too_large" {
					t.Errorf("request log %+v", log)
				}
			}
			if n := filtersOf(srv); n != 0 {
				t.Errorf("%d filters created: the smuggled request reached the handler", n)
			}
		})
	}
}

// trickleConn is a connection whose reads return at most n bytes of in.
type trickleConn struct {
	net.Conn
	in []byte
	n  int
}

func (c *trickleConn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.in))
	copy(p, c.in[:k])
	c.in = c.in[k:]
	return k, nil
}

// TestGuardFramingIgnoresReadSizes feeds the guard a pipelined stream in reads of every size
// from 1 byte: what it passes to net/http is the same each time, the stand-in in place of the
// refused request and nothing after it.
func TestGuardFramingIgnoresReadSizes(t *testing.T) {
	srv, err := New(Options{Token: testToken, Seed: testSeed(), AsOf: day("2025-01-01")})
	if err != nil {
		t.Fatal(err)
	}
	post := "POST /f HTTP/1.1\r\nHost: x\r\n"
	served := post + "Transfer-Encoding: chunked\r\n\r\n3;ext=1 \r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-T: 1\r\n \r\n\r\n" +
		post + "Content-Length: 5\r\n\r\nhello" +
		"GET /g HTTP/1.1\nHost: x\n\n"
	refused := post + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"
	want := served + "POST /f HTTP/1.1\r\nHost: emulator\r\n" + declinedHeader + ": " + srv.declineToken + " " + refuseTECL +
		"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	for n := 1; n <= len(served)+len(refused); n++ {
		c := &guardConn{Conn: &trickleConn{in: []byte(served + refused + getZone), n: n}, s: srv}
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("reads of %d bytes: passed\n%q\nwant\n%q", n, got, want)
		}
	}
}

// FuzzGuardFraming checks the guard against net/http on any input: every request net/http
// reads from what the guard passes on starts where the guard saw a head (so none slipped by
// unchecked), and none carries both Transfer-Encoding and Content-Length.
func FuzzGuardFraming(f *testing.F) {
	post := "POST /f HTTP/1.1\r\nHost: x\r\n"
	for _, seed := range []string{
		getZone + getZone,
		post + "Transfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n0\r\nX-T: 1\r\n \r\n\r\n" + smuggled,
		post + "Content-Length: 5\r\n\r\nhello" + smuggled,
		post + "Transfer-Encoding : chunked\r\n\r\n" + smuggled,
		post + "X: y\r\n Transfer-Encoding: chunked\r\n\r\n" + smuggled,
		"POST /f HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" + smuggled,
		"GET /f HTTP/1.1\nHost: x\n\r\n" + smuggled,
		post + "Transfer-Encoding: chunked\r\n\r\n2\n[]\r\n0\r\n\r\n" + smuggled,
		post + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n[]" + smuggled,
	} {
		f.Add([]byte(seed), uint8(7))
	}
	srv, err := New(Options{Token: testToken, Seed: testSeed(), AsOf: day("2025-01-01")})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		heads := map[int64]bool{}
		c := &guardConn{Conn: &trickleConn{in: in, n: int(step%64) + 1}, s: srv, headAt: func(at int64) { heads[at] = true }}
		out, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		src := strings.NewReader(string(out))
		br := bufio.NewReader(src)
		for {
			at := int64(len(out)) - int64(src.Len()) - int64(br.Buffered())
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if !heads[at] {
				t.Fatalf("net/http read a request at offset %d that the guard did not check: %q", at, out[at:])
			}
			// The fields as net/textproto reads them, before net/http drops Content-Length.
			tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(out[at:])))
			if _, err := tp.ReadLine(); err != nil {
				t.Fatal(err)
			}
			hdr, err := tp.ReadMIMEHeader()
			if err != nil {
				t.Fatal(err)
			}
			if hdr.Get(declinedHeader) == "" && len(hdr["Transfer-Encoding"]) > 0 && len(hdr["Content-Length"]) > 0 {
				t.Fatalf("a request with Transfer-Encoding and Content-Length passed: %q", out[at:])
			}
			if _, err := io.Copy(io.Discard, req.Body); err != nil {
				return
			}
		}
	})
}
