package emulator

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The guard reads the inbound bytes of every connection before net/http does. It follows the
// message framing exactly as net/http will (where a head ends, which body follows), so that it
// sees every request head, however the requests arrive: one at a time, pipelined, after a
// large head. A head it refuses is replaced by a bodyless stand-in request that the handler
// answers (see Server.declined), and the rest of the input is dropped. Where it cannot be sure
// that net/http frames the input as it does, it passes what it has checked and then ends the
// stream, so that net/http can never parse a request the guard did not see.

// declinedHeader marks the stand-in request a guardConn hands to net/http in place of a
// refused one. Its value is the server's secret token (so that no client can forge it), a
// space and the reason (one of the refuse constants).
const declinedHeader = "X-Sunset-Emulator-Declined"

// Reasons a guardConn refuses a request head.
const (
	refuseTECL     = "te-cl"          // both Transfer-Encoding and Content-Length
	refuseTooLarge = "head-too-large" // a head over maxHead
	refuseBadField = "bad-field"      // a header line that is not "name: value"
)

// teClDeclinedFrom is the day requests with both headers start being declined (spec, Limits).
var teClDeclinedFrom = time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)

// maxHead bounds a request head (request line, fields and the empty line); a larger one is
// refused with 431. net/http's own limit is higher, so it never sees a head the guard did not.
const maxHead = 1 << 20

// maxChunkLine is net/http's limit on a chunk size line, without its CRLF.
const maxChunkLine = 4096

// lingerTime bounds how long a connection whose input was dropped keeps draining the client's
// bytes before it closes: closing with unread input resets the connection, and a reset can
// destroy the refusal before the client reads it.
const lingerTime = time.Second

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
	stHead      = iota
	stFixed     // remain bytes of a Content-Length body
	stChunkSize // a chunk size line
	stChunkData // remain bytes of chunk data
	stChunkEnd  // the CRLF after chunk data
	stTrailer   // trailer fields up to an empty line
	stEnd       // nothing more is passed on: net/http reads the end of the stream
)

// guardConn is a connection whose inbound side goes through the guard.
type guardConn struct {
	net.Conn
	s       *Server
	raw     []byte // read from the network, not yet classified
	out     []byte // classified, ready for net/http
	state   int
	remain  int64
	scanned int // how much of raw a search for the end of a block has covered
	pending error
	ended   atomic.Bool // input was dropped: Close lingers (set with stEnd)
	buf     [32 << 10]byte
	// passed counts the bytes Read returned; headAt, when set (tests), is told the offset in
	// that stream of every head the guard checked and passed on, and of every stand-in.
	passed int64
	headAt func(int64)
}

func (c *guardConn) Read(p []byte) (int, error) {
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			c.passed += int64(n)
			return n, nil
		}
		if c.pending != nil {
			return 0, c.pending
		}
		if c.state == stEnd {
			c.pending = io.EOF
			continue
		}
		n, err := c.Conn.Read(c.buf[:])
		if n > 0 {
			c.raw = append(c.raw, c.buf[:n]...)
			c.feed()
		}
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// A deadline does not end the stream: net/http sets one in the past to stop its
			// read of an idle keep-alive connection, then reads on.
			if len(c.out) == 0 {
				return 0, err
			}
			continue
		}
		if c.state == stHead && len(c.raw) > 0 {
			// An incomplete head at the end of the stream: let net/http see it and fail.
			c.out = append(c.out, c.raw...)
			c.raw = nil
		}
		c.pending = err
	}
}

// Close drains what the client still sends for a moment when input was dropped, so that the
// refusal written before it reaches the client.
func (c *guardConn) Close() error {
	if c.ended.Swap(false) {
		if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			_ = c.SetReadDeadline(time.Now().Add(lingerTime))
			_, _ = io.Copy(io.Discard, io.LimitReader(c.Conn, 16*maxHead))
		}
	}
	return c.Conn.Close()
}

// end stops passing input on.
func (c *guardConn) end() {
	c.state = stEnd
	c.raw = nil
	c.ended.Store(true)
}

// feed classifies as much of raw as the framing allows.
func (c *guardConn) feed() {
	more := true
	for more && len(c.raw) > 0 {
		switch c.state {
		case stHead:
			more = c.feedHead()
		case stFixed, stChunkData:
			c.feedData()
		case stChunkSize:
			more = c.feedChunkSize()
		case stChunkEnd:
			more = c.feedChunkEnd()
		case stTrailer:
			more = c.feedTrailer()
		default:
			c.raw = nil
		}
	}
}

// feedHead takes a request head off raw and reports whether it found one.
func (c *guardConn) feedHead() bool {
	end, scanned := blockEnd(c.raw, c.scanned)
	switch {
	case end < 0 && len(c.raw) <= maxHead:
		c.scanned = scanned
		return false
	case end < 0 || end > maxHead:
		method, target := "", ""
		if nl := bytes.IndexByte(c.raw, '\n'); nl >= 0 {
			method, target, _, _ = requestLine(string(bytes.TrimSuffix(c.raw[:nl], []byte("\r"))))
		}
		c.standIn(refuseTooLarge, method, target)
		return false
	}
	c.scanned = 0
	head := c.raw[:end]
	c.raw = c.raw[end:]
	c.inspect(head)
	return true
}

// feedData passes body bytes on.
func (c *guardConn) feedData() {
	n := min(int64(len(c.raw)), c.remain)
	c.out = append(c.out, c.raw[:n]...)
	c.raw = c.raw[n:]
	c.remain -= n
	if c.remain == 0 {
		if c.state == stFixed {
			c.state = stHead
		} else {
			c.state = stChunkEnd
		}
	}
}

// feedChunkSize takes a chunk size line off raw and reports whether it found one.
func (c *guardConn) feedChunkSize() bool {
	nl := bytes.IndexByte(c.raw, '\n')
	if nl < 0 {
		if len(c.raw) > maxChunkLine+2 {
			c.end()
		}
		return false
	}
	size, ok := chunkSize(c.raw[:nl+1])
	if !ok {
		c.end()
		return false
	}
	c.out = append(c.out, c.raw[:nl+1]...)
	c.raw = c.raw[nl+1:]
	if size == 0 {
		c.state = stTrailer
	} else {
		c.state, c.remain = stChunkData, size
	}
	return true
}

// feedChunkEnd takes the CRLF after chunk data off raw and reports whether it found it.
func (c *guardConn) feedChunkEnd() bool {
	switch {
	case len(c.raw) >= 2 && c.raw[0] == '\r' && c.raw[1] == '\n':
		c.out = append(c.out, "\r\n"...)
		c.raw = c.raw[2:]
		c.state = stChunkSize
		return true
	case len(c.raw) == 1 && c.raw[0] == '\r':
		return false
	}
	c.end()
	return false
}

// feedTrailer takes the trailer fields of a chunked body off raw and reports whether it found
// their end. Like net/http, an empty first line ends them at once.
func (c *guardConn) feedTrailer() bool {
	var end int
	switch {
	case c.raw[0] == '\n':
		end = 1
	case c.raw[0] == '\r' && len(c.raw) == 1:
		return false
	case c.raw[0] == '\r' && c.raw[1] == '\n':
		end = 2
	default:
		var scanned int
		if end, scanned = blockEnd(c.raw, c.scanned); end < 0 {
			c.scanned = scanned
			if len(c.raw) > maxHead {
				c.end()
			}
			return false
		}
	}
	c.scanned = 0
	c.out = append(c.out, c.raw[:end]...)
	c.raw = c.raw[end:]
	c.state = stHead
	return true
}

// inspect looks at one request head: it refuses it with a stand-in, or passes it on and sets
// the framing of its body, or passes it on and ends the stream when net/http refuses it.
func (c *guardConn) inspect(b []byte) {
	if c.headAt != nil {
		c.headAt(c.passed + int64(len(c.out)))
	}
	h := parseHead(b)
	switch {
	case len(h.te) > 0 && len(h.cl) > 0 && !c.s.asOf().Before(teClDeclinedFrom):
		c.standIn(refuseTECL, h.method, h.target)
		return
	case h.badField:
		c.standIn(refuseBadField, h.method, h.target)
		return
	}
	c.out = append(c.out, b...)
	state, remain := h.framing()
	if state == stEnd {
		c.end()
		return
	}
	c.state, c.remain = state, remain
}

// standIn passes a bodyless request that the handler answers with the refusal of reason, in
// place of the refused one, and drops the rest of the input.
func (c *guardConn) standIn(reason, method, target string) {
	if !isToken(method) || !isTarget(target) {
		method, target = "GET", "/"
	}
	if c.headAt != nil && reason == refuseTooLarge {
		c.headAt(c.passed + int64(len(c.out))) // inspect told the others
	}
	c.out = append(c.out, method+" "+target+" HTTP/1.1\r\nHost: emulator\r\n"+declinedHeader+": "+c.s.declineToken+" "+reason+
		"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"...)
	c.end()
}

// head is what the guard reads from a request head.
type head struct {
	method, target string
	te, cl         []string // values of the Transfer-Encoding and Content-Length fields
	http10         bool     // net/http ignores Transfer-Encoding on HTTP/1.0
	opaque         bool     // net/http refuses the request line, or its version is neither 1.0 nor 1.1
	badField       bool     // a line is not "name: value": folded, no colon, or space before the colon
}

// parseHead reads a head as net/textproto will: lines end at LF, a CR before it is dropped.
func parseHead(b []byte) head {
	lines := strings.Split(string(b), "\n")
	lines = lines[:len(lines)-2] // the empty line and what follows its LF
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	var h head
	var proto string
	var ok bool
	h.method, h.target, proto, ok = requestLine(lines[0])
	h.http10 = proto == "HTTP/1.0"
	h.opaque = !ok || !h.http10 && proto != "HTTP/1.1"
	for _, line := range lines[1:] {
		name, value, found := strings.Cut(line, ":")
		if !found || !isToken(name) {
			// net/http joins folded lines and accepts a space before the colon (then the
			// field is not the one its name spells); either could smuggle a framing field.
			h.badField = true
			continue
		}
		value = strings.Trim(value, " \t")
		switch strings.ToLower(name) {
		case "transfer-encoding":
			h.te = append(h.te, value)
		case "content-length":
			h.cl = append(h.cl, value)
		}
	}
	return h
}

// framing is the state that follows the head: where net/http reads a body or refuses the
// request, and stEnd where it refuses the request or the guard cannot follow it.
func (h *head) framing() (int, int64) {
	switch {
	case h.opaque:
		return stEnd, 0
	case len(h.te) > 0 && !h.http10:
		// Like net/http, only one Transfer-Encoding field, "chunked"; it overrides Content-Length.
		if len(h.te) == 1 && strings.EqualFold(h.te[0], "chunked") {
			return stChunkSize, 0
		}
		return stEnd, 0
	case len(h.cl) == 0:
		return stHead, 0
	}
	for _, v := range h.cl[1:] {
		if v != h.cl[0] {
			return stEnd, 0
		}
	}
	n, err := strconv.ParseUint(h.cl[0], 10, 63)
	switch {
	case err != nil:
		return stEnd, 0
	case n == 0:
		return stHead, 0
	}
	return stFixed, int64(n)
}

// requestLine splits a request line as net/http does: method, target and version separated
// by the first two spaces.
func requestLine(line string) (method, target, proto string, ok bool) {
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	return method, target, proto, ok1 && ok2
}

// blockEnd returns the length of the header block at the start of b through its first empty
// line after the first ("\n" or "\r\n"), which is where net/textproto ends it; or -1 and the
// offset from which to search on once more bytes arrive.
func blockEnd(b []byte, from int) (int, int) {
	i := from
	for {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1, len(b)
		}
		nl := i + j
		rest := b[nl+1:]
		switch {
		case len(rest) == 0 || len(rest) == 1 && rest[0] == '\r':
			return -1, nl
		case rest[0] == '\n':
			return nl + 2, 0
		case rest[0] == '\r' && rest[1] == '\n':
			return nl + 3, 0
		}
		i = nl + 1
	}
}

// chunkSize reads a chunk size line (with its line end) the way net/http does, and reports
// false for any line net/http would refuse, or a size the guard cannot count.
func chunkSize(line []byte) (int64, bool) {
	text, found := bytes.CutSuffix(line, []byte("\r\n"))
	if !found || bytes.IndexByte(text, '\r') >= 0 || len(text) >= maxChunkLine {
		return 0, false
	}
	text = bytes.TrimRight(text, " \t")
	text, _, _ = bytes.Cut(text, []byte(";"))
	if len(text) == 0 || len(text) > 15 {
		return 0, false // 15 hex digits always fit an int64
	}
	var n int64
	for _, b := range text {
		var d byte
		switch {
		case b >= '0' && b <= '9':
			d = b - '0'
		case b >= 'a' && b <= 'f':
			d = b - 'a' + 10
		case b >= 'A' && b <= 'F':
			d = b - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

// isToken reports whether s is an HTTP token (a field name or a method).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		alnum := b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(b)) {
			return false
		}
	}
	return true
}

// isTarget reports whether s can stand as the target of a stand-in request line.
func isTarget(s string) bool {
	if s == "" || len(s) > 8<<10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
