// Package emulatortest lets tests wait for an emulator to reach a point of a run (a number
// of requests or writes answered) and hold it there, instead of polling its counters on a
// clock. A test that stops a client at its nth request then does so while the client waits
// for that answer, however busy the machine: polling let a fast client run past the point,
// or to its end, before the test looked.
package emulatortest

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// Watched serves an emulator and, after each answer, checks the marks tests wait for.
type Watched struct {
	*emulator.Server
	mu    sync.Mutex
	marks []*Mark
	stop  chan struct{}
	once  sync.Once
}

// Mark is a point of a run a test waits for: reached after the answer that meets its
// condition, which is held (not finished) until Release when the mark holds.
type Mark struct {
	cond    func(*emulator.Server) bool
	reached chan struct{}
	release chan struct{} // nil when the answer is not held
	// abandoned is closed when the client of a held answer goes away (it cancelled the
	// request, or it died) before Release.
	abandoned chan struct{}
	once      sync.Once
}

// Wrap returns s served through the marks.
func Wrap(s *emulator.Server) *Watched {
	return &Watched{Server: s, stop: make(chan struct{})}
}

// ServeHTTP serves r with the emulator into a buffer, then reaches every mark whose
// condition holds; when one of them holds, the answer waits for its Release, for the client
// to go away, or for Close, before it is sent. (Buffered, because net/http sends a large
// answer, or one with a Content-Length, before the handler returns.)
func (w *Watched) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	buf := &bufferedWriter{w: rw, header: http.Header{}, status: http.StatusOK}
	w.Server.ServeHTTP(buf, r)
	if buf.hijacked {
		return // a dropped connection: nothing to send
	}
	for _, m := range w.reach() {
		select {
		case <-m.release:
		case <-r.Context().Done():
			close(m.abandoned)
		case <-w.stop:
		}
	}
	for k, v := range buf.header {
		rw.Header()[k] = v
	}
	rw.WriteHeader(buf.status)
	_, _ = rw.Write(buf.body.Bytes())
}

// bufferedWriter keeps an answer until ServeHTTP sends it; a hijack (the emulator's dropped
// connection) goes to the real connection.
type bufferedWriter struct {
	w        http.ResponseWriter
	header   http.Header
	status   int
	body     bytes.Buffer
	hijacked bool
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) WriteHeader(status int)      { b.status = status }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.body.Write(p) }

// Hijack hands over the real connection.
func (b *bufferedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := b.w.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("emulatortest: the connection cannot be hijacked")
	}
	b.hijacked = true
	return hj.Hijack()
}

// reach closes the marks whose condition holds now, removes them, and returns those that
// hold their answer.
func (w *Watched) reach() []*Mark {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.marks) == 0 {
		return nil
	}
	var held []*Mark
	keep := w.marks[:0]
	for _, m := range w.marks {
		if !m.cond(w.Server) {
			keep = append(keep, m)
			continue
		}
		close(m.reached)
		if m.release != nil {
			held = append(held, m)
		}
	}
	w.marks = keep
	return held
}

// When returns a mark reached after the first answer that makes cond true (at once when it
// already is).
func (w *Watched) When(cond func(*emulator.Server) bool) *Mark {
	return w.add(&Mark{cond: cond, reached: make(chan struct{})})
}

// HoldWhen is When, and the answer that reaches the mark is not finished before Release:
// its client is still waiting for it when the test acts.
func (w *Watched) HoldWhen(cond func(*emulator.Server) bool) *Mark {
	return w.add(&Mark{cond: cond, reached: make(chan struct{}), release: make(chan struct{}), abandoned: make(chan struct{})})
}

func (w *Watched) add(m *Mark) *Mark {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m.cond(w.Server) {
		close(m.reached)
		return m
	}
	w.marks = append(w.marks, m)
	return m
}

// Close finishes every held answer, now and later; tests call it when they end.
func (w *Watched) Close() { w.once.Do(func() { close(w.stop) }) }

// Reached is closed once the mark is reached.
func (m *Mark) Reached() <-chan struct{} { return m.reached }

// Abandoned is closed when the client of the held answer goes away before Release: a
// client that cancels its run on a signal has then acted on the signal.
func (m *Mark) Abandoned() <-chan struct{} { return m.abandoned }

// Release finishes the held answer (nothing for a mark that does not hold).
func (m *Mark) Release() {
	if m.release != nil {
		m.once.Do(func() { close(m.release) })
	}
}

// Requests is the condition "n requests answered in all".
func Requests(n int) func(*emulator.Server) bool {
	return func(s *emulator.Server) bool { return s.Stats().Total >= n }
}

// Writes is the condition "n writes answered in all".
func Writes(n int) func(*emulator.Server) bool {
	return func(s *emulator.Server) bool { return s.Stats().Writes >= n }
}
