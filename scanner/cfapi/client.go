// Package cfapi is the HTTP client of the zone management API: authentication (API token or
// e-mail + key), the {result, success, errors, messages, result_info} envelope, pagination,
// one shared rate limiter per client, retries with backoff that honour Retry-After, request
// accounting and typed errors. Typed methods return scanner/inventory types.
//
// Secrets never leave the Credentials value: errors carry method, path and the API's own
// error objects (scrubbed of any echoed secret), and every Stringer/Formatter of the client,
// its config and its credentials prints a redacted description.
package cfapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// Defaults of Config.
const (
	// DefaultBaseURL is the public v4 base address.
	DefaultBaseURL = "https://api.cloudflare.com/client/v4"
	// DefaultRPS stays one request under the API's global budget of 1,200 requests per
	// 5 minutes: with a burst of 1, no 5-minute window, however it is aligned, can then
	// hold more than 1,200 requests (burst + rate x window <= 1,200).
	DefaultRPS = 1199.0 / 300.0
	// MinRPS is the slowest pace Config.RPS may ask for (one request every 10 seconds): a
	// slower one would leave a scan waiting for hours between requests, which looks hung.
	MinRPS = 0.1
	// DefaultMaxRetries is used when Config.MaxRetries is 0.
	DefaultMaxRetries = 5
	// DefaultRetryBaseDelay is the first backoff step.
	DefaultRetryBaseDelay = 500 * time.Millisecond
	// DefaultRetryMaxDelay caps the computed backoff (a Retry-After may be longer).
	DefaultRetryMaxDelay = 30 * time.Second
	// DefaultTimeout bounds one attempt of the default HTTP client.
	DefaultTimeout = 60 * time.Second
)

// UserAgent returns the User-Agent sunset sends: "sunset/<version>".
func UserAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return "sunset/" + version
}

// Config configures a Client. The zero value talks to DefaultBaseURL without pacing; the
// CLI sets RPS to DefaultRPS (or --rps).
type Config struct {
	// BaseURL is the API base including the version prefix; "" means DefaultBaseURL. It
	// must be https://, or http:// to a loopback host (127.0.0.0/8, ::1, localhost).
	BaseURL string
	// Credentials authenticate every request.
	Credentials Credentials
	// UserAgent is sent as User-Agent; "" means UserAgent("dev").
	UserAgent string
	// HTTPClient sends the requests; nil means a client with DefaultTimeout. Redirects are
	// never followed (the API does not redirect, and X-Auth-Key would follow a redirect to
	// another host).
	HTTPClient *http.Client
	// RPS is the sustained request rate shared by all goroutines of the client; RPS <= 0
	// means unlimited. A rate that is not a number, infinite or below MinRPS is refused.
	RPS float64
	// Burst is how many requests may go at once; <= 0 means ceil(RPS) (at least 1).
	Burst int
	// MaxRetries is how many times a failed request is retried: 0 means
	// DefaultMaxRetries, a negative value means never.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff (0: the defaults).
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// BodyBudget bounds the bytes of response bodies all goroutines of the client hold at
	// once (0: DefaultBodyBudget); one body may take at most about three quarters of it, a
	// larger one fails its call with a *BodyTooLargeError.
	BodyBudget int64
	// MaxInFlight bounds the requests of all goroutines of the client on the wire at once:
	// from sending one until its answer is read. A request waiting out a Retry-After or a
	// backoff holds none, so another goroutine's request goes meanwhile; waiting requests
	// take the freed places in the order they became ready. <= 0 means no bound.
	MaxInFlight int
	// Now, Sleep and Rand are the clock, the wait and the jitter source (tests inject
	// them); nil means the real ones. Sleep must return ctx.Err() promptly when ctx ends.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

// String describes the config without secrets.
func (c Config) String() string {
	return fmt.Sprintf("cfapi.Config{BaseURL: %q, Credentials: %s, UserAgent: %q, RPS: %g, Burst: %d, MaxRetries: %d}",
		c.BaseURL, c.Credentials.Describe(), c.UserAgent, c.RPS, c.Burst, c.MaxRetries)
}

// GoString keeps %#v redacted.
func (c Config) GoString() string { return c.String() }

// Format implements fmt.Formatter so %v and %+v print String.
func (c Config) Format(f fmt.State, verb rune) { fmt.Fprint(f, c.String()) }

// Client calls the API. It is safe for concurrent use; all goroutines share its limiter,
// its 429 gate and its counters.
type Client struct {
	base      string // without trailing slash
	creds     Credentials
	userAgent string
	hc        *http.Client
	pace      *pacer
	// inFlight holds Config.MaxInFlight places, one per request on the wire; nil when
	// unbounded. Its waiters are served first come, first served.
	inFlight   *semaphore.Weighted
	budget     *bodyBudget
	maxRetries int
	retryBase  time.Duration
	retryMax   time.Duration
	now        func() time.Time
	sleep      func(context.Context, time.Duration) error
	rand       func() float64
	stats      counters
	// onSend, when set by a test, sees the pacer's slot of every attempt.
	onSend func(slot time.Time)
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	base, err := checkBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if err := cfg.Credentials.validate(); err != nil {
		return nil, err
	}
	if err := CheckRPS(cfg.RPS); err != nil {
		return nil, err
	}
	c := &Client{
		base:       base,
		creds:      cfg.Credentials,
		userAgent:  cfg.UserAgent,
		maxRetries: cfg.MaxRetries,
		retryBase:  cfg.RetryBaseDelay,
		retryMax:   cfg.RetryMaxDelay,
		now:        cfg.Now,
		sleep:      cfg.Sleep,
		rand:       cfg.Rand,
	}
	if c.userAgent == "" {
		c.userAgent = UserAgent("")
	}
	if strings.ContainsAny(c.userAgent, "\r\n") {
		return nil, errors.New("user agent contains a line break")
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.retryBase <= 0 {
		c.retryBase = DefaultRetryBaseDelay
	}
	if c.retryMax <= 0 {
		c.retryMax = DefaultRetryMaxDelay
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	hc := &http.Client{Timeout: DefaultTimeout, Transport: defaultTransport()}
	if cfg.HTTPClient != nil {
		cp := *cfg.HTTPClient
		hc = &cp
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = hc
	burst := cfg.Burst
	if burst <= 0 {
		burst = max(1, int(math.Ceil(cfg.RPS)))
	}
	c.pace = newPacer(cfg.RPS, burst, c.now, c.sleep)
	if cfg.MaxInFlight > 0 {
		c.inFlight = semaphore.NewWeighted(int64(cfg.MaxInFlight))
	}
	c.budget = newBodyBudget(cfg.BodyBudget)
	return c, nil
}

// CheckRPS refuses a request rate the pacer cannot honour: NaN and infinities (which would
// silently mean "unpaced") and a positive rate below MinRPS (which would wait for hours).
// 0 and negative rates mean unpaced.
func CheckRPS(rps float64) error {
	switch {
	case math.IsNaN(rps) || math.IsInf(rps, 0):
		return fmt.Errorf("rate %g requests per second is not a finite number", rps)
	case rps > 0 && rps < MinRPS:
		return fmt.Errorf("rate %g requests per second is below the minimum %g", rps, MinRPS)
	}
	return nil
}

// defaultTransport is http.DefaultTransport with room for the idle connections of a pool
// of workers (the default keeps 2 per host and would reconnect for every other request).
func defaultTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

// checkBaseURL returns the base without a trailing slash, or a clear refusal.
func checkBaseURL(raw string) (string, error) {
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole input, which could hold a password: keep the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("base URL is not a URL: %w", err)
	}
	if u.User != nil {
		return "", errors.New("base URL must not contain a user name or password; use CLOUDFLARE_API_TOKEN or CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY")
	}
	if u.Host == "" {
		return "", fmt.Errorf("base URL %q has no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base URL %q must not have a query or fragment", u.Redacted())
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return "", fmt.Errorf("refusing plain http:// to %q: credentials would travel unencrypted; use https:// (http:// is allowed only for loopback hosts: 127.0.0.0/8, ::1, localhost)", u.Hostname())
		}
	default:
		return "", fmt.Errorf("base URL %q: scheme must be https (or http for a loopback host)", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// SameBaseURL reports whether two API base URLs name the same API: equal once the scheme
// and host are in lower case and a trailing slash is dropped (as URLs compare; the path's
// case matters). It is the one comparison of where a saved plan or journal was bound to
// with where a run is about to send.
func SameBaseURL(a, b string) bool {
	return normalBaseURL(a) == normalBaseURL(b)
}

// normalBaseURL is raw as SameBaseURL compares it; raw itself, trimmed, when it does not
// parse as an absolute URL.
func normalBaseURL(raw string) string {
	raw = strings.TrimRight(raw, "/")
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String()
}

// isLoopback accepts localhost, 127.0.0.0/8 and ::1 (literal addresses only: a name other
// than localhost could resolve anywhere).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// BaseURL returns the base address the client talks to.
func (c *Client) BaseURL() string { return c.base }

// DescribeCredentials names the kind of credentials in use (never the secret).
func (c *Client) DescribeCredentials() string { return c.creds.Describe() }

// String describes the client without secrets.
func (c *Client) String() string {
	if c == nil {
		return "cfapi.Client(nil)"
	}
	return fmt.Sprintf("cfapi.Client{base: %s, credentials: %s, user agent: %s}", c.base, c.creds.Describe(), c.userAgent)
}

// GoString keeps %#v redacted.
func (c *Client) GoString() string { return c.String() }

// Format implements fmt.Formatter so every verb prints String.
func (c *Client) Format(f fmt.State, verb rune) { fmt.Fprint(f, c.String()) }

// Stats are the client's request counters. Requests counts every attempt sent, retries
// included.
type Stats struct {
	Requests int64 `json:"requests"`
	// ByMethod counts attempts per HTTP method (GET, POST, PUT, PATCH, DELETE, OTHER).
	ByMethod map[string]int64 `json:"by_method"`
	// Retries counts attempts after the first of a request.
	Retries int64 `json:"retries"`
	// RateLimited counts 429 answers.
	RateLimited int64 `json:"rate_limited"`
}

var methodSlots = [...]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "OTHER"}

type counters struct {
	total, retries, limited atomic.Int64
	byMethod                [len(methodSlots)]atomic.Int64
}

func (k *counters) count(ctx context.Context, method string) {
	k.total.Add(1)
	slot := len(methodSlots) - 1
	for i, m := range methodSlots[:len(methodSlots)-1] {
		if m == method {
			slot = i
		}
	}
	k.byMethod[slot].Add(1)
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok && n != nil {
		n.Add(1)
	}
}

// Stats returns a copy of the counters.
func (c *Client) Stats() Stats {
	s := Stats{
		Requests:    c.stats.total.Load(),
		Retries:     c.stats.retries.Load(),
		RateLimited: c.stats.limited.Load(),
		ByMethod:    map[string]int64{},
	}
	for i, m := range methodSlots {
		if n := c.stats.byMethod[i].Load(); n > 0 {
			s.ByMethod[m] = n
		}
	}
	return s
}

type waitHookKey struct{}

// WithWaitHook returns a context under which a request calls hook(true) when it begins
// waiting out a Retry-After or a backoff before its retry (holding no place among the
// requests in flight), and hook(false) when that wait ends. A collector uses it to start
// another zone while its own requests wait.
func WithWaitHook(ctx context.Context, hook func(waiting bool)) context.Context {
	return context.WithValue(ctx, waitHookKey{}, hook)
}

// waitRetry waits d before a retry, telling the context's wait hook.
func (c *Client) waitRetry(ctx context.Context, d time.Duration) error {
	if hook, ok := ctx.Value(waitHookKey{}).(func(bool)); ok && hook != nil {
		hook(true)
		defer hook(false)
	}
	return c.sleep(ctx, d)
}

type counterKey struct{}

// WithRequestCounter returns a context under which every request attempt the client sends
// also adds one to n; a collector uses it to count the requests of one zone.
func WithRequestCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, counterKey{}, n)
}
