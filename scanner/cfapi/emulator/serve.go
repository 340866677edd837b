package emulator

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Serve runs the emulator on ln until ctx ends, then shuts down cleanly (in-flight requests
// get a few seconds to finish). It returns nil after a shutdown caused by ctx, or the error
// that stopped the server.
//
// Unlike a plain http.Server, Serve reads every request head of a connection before net/http
// parses it (see guard.go), so that it can refuse, as the real API does, a request that
// carries both Transfer-Encoding and Content-Length (400, from 2023-07-01 on the emulator's
// clock; net/http would silently drop Content-Length), a head over 1 MiB (431) and a header
// line that is not "name: value" (400); each refusal closes the connection. Other requests
// are served as by net/http, many on one keep-alive connection.
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

// declined answers the stand-in of a request the guard refused (see guard.go) for reason, and
// closes the connection.
func (s *Server) declined(w http.ResponseWriter, r *http.Request, reason string) {
	entry := LoggedRequest{Time: s.now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	if rel, found := strings.CutPrefix(r.URL.Path, BasePath); found {
		if rt, _, _ := s.match(r.Method, rel); rt != nil {
			entry.Pattern = rt.pattern
		}
	}
	var rep *reply
	switch reason {
	case refuseTooLarge:
		entry.Fault = "head_too_large"
		rep = fail(http.StatusRequestHeaderFieldsTooLarge, CodeBadHeaders,
			"Request header fields too large: the request line and header fields exceed 1 MiB")
	case refuseBadField:
		entry.Fault = "bad_field"
		rep = fail(http.StatusBadRequest, CodeBadHeaders,
			"Invalid request headers: every header line must be a field name, a colon and a value, with no whitespace before the colon and no line folding (RFC 7230 section 3.2.4)")
	default:
		entry.Fault = "declined"
		rep = fail(http.StatusBadRequest, CodeBadHeaders,
			"Invalid request headers: a request must not carry both Transfer-Encoding and Content-Length (RFC 7230 section 3.3.3); such requests are declined since 2023-07-01")
	}
	rep.header = http.Header{"Connection": {"close"}}
	s.respond(w, &entry, rep)
}
