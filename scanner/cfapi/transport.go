package cfapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxRetryAfter bounds how long one Retry-After may hold the client back; the API's own
// block lasts 5 minutes.
const maxRetryAfter = 15 * time.Minute

// request is one API call before it is sent.
type request struct {
	method string
	// path is escaped and relative to the base URL, starting with "/".
	path  string
	query url.Values
	// body is encoded as JSON when not nil.
	body any
	// deprecated marks routes of a deprecation notice, which widens Error.Retired.
	deprecated bool
	// list marks a page of a list: its result must be an array. A success whose result
	// is null or missing read nothing, which is a failure, not an empty list.
	list bool
}

// route joins path segments, escaping each with url.PathEscape. An empty, "." or ".."
// segment is refused: it would silently address another resource.
func route(segs ...string) (string, error) {
	var b strings.Builder
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Errorf("invalid path segment %q in %s", s, patternOf(segs))
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String(), nil
}

func patternOf(segs []string) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			s = "{?}"
		}
		parts[i] = s
	}
	return "/" + strings.Join(parts, "/")
}

// do sends r with pacing and retries and decodes the envelope's result into out (nil out
// ignores the result). It returns the envelope's result_info (nil when absent).
//
// Retry rule: 429, 5xx (except 501) and network failures (connection refused or reset,
// unreachable host, EOF, timeouts) are retried up to MaxRetries times with exponential
// backoff and jitter; a Retry-After (seconds or HTTP date) is honoured as a minimum, and a
// 429's exactly (see on429 for which 429s hold back every worker). A POST
// is retried only after a 429, which the API sends without acting on the request, or when
// its connection could not be opened: a POST that met a 5xx or a broken connection may have
// been applied, and sending it again could duplicate a rule.
func (c *Client) do(ctx context.Context, r request, out any) (*ResultInfo, error) {
	payload, err := encodeBody(r.body)
	if err != nil {
		return nil, c.fail(r, 0, 0, fmt.Errorf("encoding request body: %w", err))
	}
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var t try
	for t.n = 1; ; t.n++ {
		if err := c.startAttempt(ctx, r.method, &t); err != nil {
			return nil, c.fail(r, 0, t.n-1, err)
		}
		a, err := c.send(ctx, r.method, target, payload, out)
		c.release()
		if err != nil {
			if e := c.afterTransportFailure(ctx, r, a.status, t.n, err); e != nil {
				return nil, e
			}
			continue
		}
		if a.status >= 200 && a.status <= 299 {
			c.pace.answered()
			return c.success(r, a, t.n)
		}
		if e := c.afterHTTPError(ctx, r, a, &t); e != nil {
			return nil, e
		}
	}
}

// try is the state of one request across its attempts.
type try struct {
	n       int       // the attempt, from 1
	slot    time.Time // when the pacer let the attempt go
	limited bool      // the attempt before this one got a 429
}

// release gives back the place startAttempt took among the requests in flight.
func (c *Client) release() {
	if c.inFlight != nil {
		c.inFlight.Release(1)
	}
}

// encodeBody is the JSON of a request body, nil when there is none.
func encodeBody(body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	return json.Marshal(body)
}

// startAttempt waits for a place among the requests in flight (Config.MaxInFlight), then
// for the pacer's slot, then counts the attempt, as a retry after the first, so the
// counters cover every request sent. On success the caller releases the place once the
// answer is read, before any wait for a retry: a waiting request holds no place.
func (c *Client) startAttempt(ctx context.Context, method string, t *try) error {
	if c.inFlight != nil {
		if err := c.inFlight.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	slot, err := c.pace.wait(ctx)
	if err != nil {
		c.release()
		return err
	}
	t.slot = slot
	if c.onSend != nil {
		c.onSend(slot)
	}
	c.stats.count(ctx, method)
	if t.n > 1 {
		c.stats.retries.Add(1)
	}
	return nil
}

// afterTransportFailure decides what follows an attempt that got no answer: nil once the
// backoff has passed and the request may be sent again, or the *Error to return. Only a
// transient failure is retried, and a POST only when its connection could not be opened
// (otherwise it may have been applied).
func (c *Client) afterTransportFailure(ctx context.Context, r request, status, attempt int, err error) *Error {
	if ctx.Err() != nil {
		return c.fail(r, 0, attempt, ctx.Err())
	}
	if attempt > c.maxRetries || !transient(err) || (r.method == http.MethodPost && !notSent(err)) {
		return c.fail(r, status, attempt, err)
	}
	if err := c.waitRetry(ctx, c.backoff(attempt)); err != nil {
		return c.fail(r, 0, attempt, err)
	}
	return nil
}

// afterHTTPError decides what follows a non-2xx answer: nil when the request may be sent
// again, or the *Error to return. A 429 is applied to the shared pacer (see on429) and
// this request waits for its own Retry-After; another retryable status waits here for the
// backoff, or for a longer Retry-After. A POST is retried only after a 429, which the API
// sends without acting on the request.
func (c *Client) afterHTTPError(ctx context.Context, r request, a *answer, t *try) *Error {
	status, header := a.status, a.header
	limited := status == http.StatusTooManyRequests
	var wait time.Duration
	if limited {
		c.stats.limited.Add(1)
		wait = c.on429(header, *t)
	} else {
		c.pace.answered()
	}
	e := c.httpError(r, a, t.n)
	if t.n > c.maxRetries || !retryableStatus(status) || (r.method == http.MethodPost && !limited) {
		return e
	}
	t.limited = limited
	if !limited {
		wait = c.backoff(t.n)
		if ra, ok := retryAfter(header, c.now()); ok && ra > wait {
			wait = ra
		}
	}
	if wait > 0 { // 0: the retry waits at the shared gate, in pace.wait
		if err := c.waitRetry(ctx, wait); err != nil {
			return c.fail(r, 0, t.n, err)
		}
	}
	return nil
}

// on429 applies a 429 to the pacer and returns how long this request alone waits before
// its retry. A 429 that says the account's budget is spent (a Retry-After of
// sharedRetryAfter or more, or a Ratelimit header with nothing remaining), or that gives
// no Retry-After at all, closes the gate for every worker and lowers the shared rate; the
// retry then waits at the gate. A shorter Retry-After is honoured exactly by this request
// alone, and lowers the shared rate only when the previous attempt's Retry-After was not
// enough.
func (c *Client) on429(header http.Header, t try) time.Duration {
	ra, ok := retryAfter(header, c.now())
	switch {
	case !ok:
		c.pace.block(max(c.backoff(t.n), minRetryAfterGate))
	case ra >= sharedRetryAfter || budgetSpent(header):
		c.pace.block(ra)
	default:
		if t.limited {
			c.pace.slowDown(t.slot)
		}
		return ra
	}
	c.pace.slowDown(t.slot)
	return 0
}

// budgetSpent reports whether a Ratelimit header (IETF draft, sent by newer API answers as
// `"default";r=0;t=30`) says no request remains in the window.
func budgetSpent(h http.Header) bool {
	for _, v := range h.Values("Ratelimit") {
		for _, item := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == ',' }) {
			if strings.TrimSpace(item) == "r=0" {
				return true
			}
		}
	}
	return false
}

// answer is one response, its body decoded as it was read.
type answer struct {
	status int
	header http.Header
	decoded
	// excerpt is the redacted start of a body that is not an envelope.
	excerpt string
}

// send performs one attempt and decodes its body as it streams in, within the client's
// body budget: a 2xx envelope's result goes straight into out. An error is a failure to get
// or read the answer (transport, context, a body over the budget); the answer then carries
// the status when one came.
func (c *Client) send(ctx context.Context, method, target string, payload []byte, out any) (*answer, error) {
	a := &answer{}
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return a, err
	}
	c.creds.apply(req.Header)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return a, unwrapURLError(err)
	}
	a.status, a.header = resp.StatusCode, resp.Header
	body, err := c.budget.open(ctx, resp.Body)
	if err != nil {
		_ = resp.Body.Close() // nothing was read; a failed close loses nothing
		return a, err
	}
	defer func() { _ = body.Close() }() // the body was decoded or its read error returned; a failed close loses nothing
	if a.status < 200 || a.status > 299 {
		out = nil
	}
	a.decoded = decodeStream(body, out)
	if !a.isEnv && !a.empty && body.failed == nil {
		whole := body.fillHead()
		a.excerpt = redactedExcerpt(body.head, whole, c.creds.secrets())
	}
	if body.failed != nil {
		return a, fmt.Errorf("reading response: %w", unwrapURLError(body.failed))
	}
	return a, nil
}

// success judges a 2xx answer. An empty body (204) is a success without result, except for
// a list page; a body that is not an envelope, an envelope with success false, a list page
// without a result array or a result that does not decode is an *Error.
func (c *Client) success(r request, a *answer, attempt int) (*ResultInfo, error) {
	switch {
	case a.empty && r.list:
		return nil, c.fail(r, a.status, attempt, errNullList)
	case a.empty:
		return nil, nil
	case !a.isEnv:
		e := c.fail(r, a.status, attempt, errors.New("response is not a JSON envelope"))
		e.Body = a.excerpt
		return nil, e
	case a.env.Success != nil && !*a.env.Success:
		return nil, c.envelopeError(r, a.status, a.env, attempt)
	case r.list && a.result != resultValue:
		return nil, c.fail(r, a.status, attempt, errNullList)
	case a.resultErr != nil:
		return nil, c.fail(r, a.status, attempt, fmt.Errorf("decoding result: %w", a.resultErr))
	}
	return a.env.ResultInfo, nil
}

// httpError builds the *Error of a non-2xx answer from its envelope or its text.
func (c *Client) httpError(r request, a *answer, attempt int) *Error {
	if a.isEnv {
		return c.envelopeError(r, a.status, a.env, attempt)
	}
	e := c.fail(r, a.status, attempt, nil)
	e.Body = a.excerpt
	return e
}

func (c *Client) envelopeError(r request, status int, env envelope, attempt int) *Error {
	e := c.fail(r, status, attempt, nil)
	e.Errors = env.Errors
	e.Messages = env.Messages
	scrubDetails(e.Errors, c.creds.secrets())
	scrubDetails(e.Messages, c.creds.secrets())
	if len(e.Errors) == 0 && status >= 200 && status <= 299 {
		e.Err = errors.New("success is false")
	}
	return e
}

func (c *Client) fail(r request, status, attempts int, err error) *Error {
	if err != nil {
		// A transport error's text comes from the network stack, never from headers;
		// scrub it anyway, it is cheap.
		if s := err.Error(); scrub(s, c.creds.secrets()) != s {
			err = errors.New(scrub(s, c.creds.secrets()))
		}
	}
	return &Error{Method: r.method, Path: r.path, Status: status, Attempts: attempts, Deprecated: r.deprecated, Err: err}
}

// backoff is the wait before retry number attempt (1 = first retry): base*2^(attempt-1),
// capped at the maximum, with "equal jitter" (half fixed, half random) so workers spread out.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retryBase
	for i := 1; i < attempt && d < c.retryMax; i++ {
		d *= 2
	}
	d = min(d, c.retryMax)
	half := d / 2
	return half + time.Duration(c.rand()*float64(d-half))
}

// retryAfter reads Retry-After as seconds or as an HTTP date relative to now, bounded by
// maxRetryAfter.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, maxRetryAfter), true
}

// retryableStatus: 429 and the 5xx answers that may go away (501 will not).
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || (status >= 500 && status <= 599 && status != http.StatusNotImplemented)
}

// transient reports transport failures worth another attempt (the README's "network"
// failures): a refused, reset or closed connection, an unreachable host or network, a name
// lookup that failed for now, an unexpected EOF, a timeout.
func transient(err error) bool {
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH, os.ErrDeadlineExceeded} {
		if errors.Is(err, target) {
			return true
		}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && (dns.IsTemporary || dns.IsTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// notSent reports a failure before the request left this machine: the connection could not
// be opened. Sending it again cannot apply it twice, so even a POST is retried.
func notSent(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// unwrapURLError drops *url.Error's repetition of the method and URL (the Error already
// names them).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
