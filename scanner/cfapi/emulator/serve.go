package emulator

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Serve runs the emulator on ln until ctx ends, then shuts down cleanly (in-flight requests
// get a few seconds to finish). It returns nil after a shutdown caused by ctx, or the error
// that stopped the server.
//
// Unlike a plain http.Server, Serve declines requests that carry both Transfer-Encoding and
// Content-Length (from 2023-07-01 on the emulator's clock), as the real API does. net/http
// silently drops Content-Length from such a request, so the check runs on the raw bytes of
// every request head of a connection, before net/http parses it.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	// Connections a client opened but never used stay "new", and http.Server.Shutdown only
	// closes those after 5 s; they are tracked so that a stop does not wait for them.
	var mu sync.Mutex
	fresh := map[net.Conn]bool{}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnState: func(c net.Conn, st http.ConnState) {
			mu.Lock()
			defer mu.Unlock()
			if st == http.StateNew {
				fresh[c] = true
			} else {
				delete(fresh, c)
			}
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(&guardListener{Listener: ln, s: s}) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	mu.Lock()
	for c := range fresh {
		_ = c.Close() // never carried a request: nothing to finish
	}
	mu.Unlock()
	err := srv.Shutdown(shutdown)
	if err != nil {
		_ = srv.Close()
	}
	if serveErr := <-errc; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// declinedHeader marks the stand-in request a guardConn hands to net/http in place of a
// declined one; its value is the server's secret token, so a client cannot forge it.
const declinedHeader = "X-Sunset-Emulator-Declined"

// teClDeclinedFrom is the day requests with both headers start being declined (spec, Limits).
var teClDeclinedFrom = time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)

// maxHead bounds how much of a request head is buffered for inspection; a larger head is
// passed through for net/http to refuse (431).
const maxHead = 1 << 20

type guardListener struct {
	net.Listener
	s *Server
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, s: l.s}, nil
}

// Framing states of the inbound byte stream.
const (
	stHead = iota
	stFixed
	stChunkSize
	stChunkData
	stTrailer
	stPass    // framing unknown (net/http will refuse the request): pass bytes through
	stDiscard // a request was declined: the connection closes after the stand-in answer
)

// guardConn follows HTTP/1.1 message framing on the inbound side of a connection, so that it
// sees every request head, and replaces a head carrying both Transfer-Encoding and
// Content-Length by a bodyless stand-in request that the handler answers with 400. The
// stand-in goes through net/http like any request, so responses stay in order on a
// keep-alive or pipelined connection.
type guardConn struct {
	net.Conn
	s       *Server
	raw     []byte // read from the network, not yet classified
	out     []byte // classified, ready for net/http
	state   int
	remain  int64
	pending error
	buf     [32 << 10]byte
}

func (c *guardConn) Read(p []byte) (int, error) {
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		if c.pending != nil {
			return 0, c.pending
		}
		n, err := c.Conn.Read(c.buf[:])
		if n > 0 && c.state != stDiscard {
			c.raw = append(c.raw, c.buf[:n]...)
			c.feed()
		}
		if err != nil {
			if c.state == stHead && len(c.raw) > 0 {
				// An incomplete head at the end of the stream: let net/http see it and fail.
				c.out = append(c.out, c.raw...)
				c.raw = nil
			}
			c.pending = err
		}
	}
}

// feed classifies as much of raw as the framing allows.
func (c *guardConn) feed() {
	for len(c.raw) > 0 {
		switch c.state {
		case stHead:
			end := bytes.Index(c.raw, []byte("\r\n\r\n"))
			sep := 4
			if lf := bytes.Index(c.raw, []byte("\n\n")); lf >= 0 && (end < 0 || lf < end) {
				end, sep = lf, 2
			}
			if end < 0 {
				if len(c.raw) > maxHead {
					c.state = stPass
					continue
				}
				return
			}
			head := c.raw[:end+sep]
			c.raw = c.raw[end+sep:]
			c.inspect(head)
		case stFixed, stChunkData:
			n := int64(len(c.raw))
			if n > c.remain {
				n = c.remain
			}
			c.out = append(c.out, c.raw[:n]...)
			c.raw = c.raw[n:]
			c.remain -= n
			if c.remain == 0 {
				if c.state == stFixed {
					c.state = stHead
				} else {
					c.state = stChunkSize
				}
			}
		case stChunkSize, stTrailer:
			nl := bytes.IndexByte(c.raw, '\n')
			if nl < 0 {
				if len(c.raw) > 64<<10 {
					c.state = stPass
					continue
				}
				return
			}
			line := c.raw[:nl+1]
			c.out = append(c.out, line...)
			c.raw = c.raw[nl+1:]
			text := strings.TrimSpace(string(line))
			if c.state == stTrailer {
				if text == "" {
					c.state = stHead
				}
				continue
			}
			sizeText, _, _ := strings.Cut(text, ";")
			size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
			switch {
			case err != nil || size < 0:
				c.state = stPass
			case size == 0:
				c.state = stTrailer
			default:
				c.state, c.remain = stChunkData, size+2 // data and its CRLF
			}
		case stPass:
			c.out = append(c.out, c.raw...)
			c.raw = nil
		case stDiscard:
			c.raw = nil
		}
	}
}

// inspect looks at one request head: it either passes it on and sets the framing of the body,
// or, for Transfer-Encoding with Content-Length, passes a stand-in and discards the rest.
func (c *guardConn) inspect(head []byte) {
	lines := strings.Split(strings.ReplaceAll(string(head), "\r\n", "\n"), "\n")
	var te []string
	var cl []string
	host := ""
	for _, line := range lines[1:] {
		name, value, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "transfer-encoding":
			te = append(te, value)
		case "content-length":
			cl = append(cl, value)
		case "host":
			host = value
		}
	}
	if len(te) > 0 && len(cl) > 0 && !c.s.asOf().Before(teClDeclinedFrom) {
		method, target := "GET", "/"
		if f := strings.Fields(lines[0]); len(f) >= 2 {
			method, target = f[0], f[1]
		}
		if host == "" {
			host = "localhost"
		}
		stand := method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + declinedHeader + ": " + c.s.declineToken +
			"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
		c.out = append(c.out, stand...)
		c.raw = nil
		c.state = stDiscard
		return
	}
	c.out = append(c.out, head...)
	switch {
	case len(te) > 0:
		codings := strings.Split(strings.ToLower(strings.Join(te, ",")), ",")
		if strings.TrimSpace(codings[len(codings)-1]) == "chunked" {
			c.state = stChunkSize
		} else {
			c.state = stPass
		}
	case len(cl) > 0:
		n, err := strconv.ParseInt(strings.TrimSpace(cl[0]), 10, 64)
		if err != nil || n < 0 {
			c.state = stPass
		} else if n > 0 {
			c.state, c.remain = stFixed, n
		}
	}
}

// declined answers the stand-in of a request that carried both Transfer-Encoding and
// Content-Length.
func (s *Server) declined(w http.ResponseWriter, r *http.Request) {
	entry := LoggedRequest{Time: s.now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Fault: "declined"}
	if rel, found := strings.CutPrefix(r.URL.Path, BasePath); found {
		if rt, _, _ := s.match(r.Method, rel); rt != nil {
			entry.Pattern = rt.pattern
		}
	}
	rep := fail(http.StatusBadRequest, CodeBadHeaders,
		"Invalid request headers: a request must not carry both Transfer-Encoding and Content-Length (RFC 7230 section 3.3.3); such requests are declined since 2023-07-01")
	rep.header = http.Header{"Connection": {"close"}}
	s.respond(w, &entry, rep)
}
