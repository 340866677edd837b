// Package emulator is an in-process implementation of the zone management API: the spec
// (shared/spec/zone-management-api.md) and the real API's documented details over in-memory
// state, served under /client/v4 by an http.Handler, so that tests, `sunset demo` and users'
// CI can exercise real HTTP without an account.
//
// What it does, in short:
//   - Every JSON response is an envelope {result, success, errors, messages} and lists carry
//     result_info {page, per_page, count, total_count, total_pages}. A per_page above an
//     endpoint's maximum (zones 50, accounts 50, firewall rules 100, filters 100, WAF lists 100,
//     rate limits 1000, DNS records 5,000,000, other lists 1000) is refused with 400 and
//     CodeBadQuery rather than clamped, so a client that asks for too much learns it in tests.
//   - Credentials: "Authorization: Bearer TOKEN" or the X-Auth-Email + X-Auth-Key pair;
//     anything else is a 403 with code 10000.
//   - The clock Options.AsOf drives the dated changes of the spec (DNS record fields, the DNS
//     error representation, SRV data fields, the Transfer-Encoding + Content-Length refusal)
//     and, with Options.Retire, retires deprecated endpoints past their end of life.
//   - Old and new settings reflect each other: the replacement field is the stored truth and
//     the deprecated form is derived from it on every read (cname_flattening <->
//     dns_settings.flatten_all_cnames, use_apex_ns <-> multi_provider, the secondary_overrides
//     endpoint <-> field, account settings.default_nameservers and
//     use_account_custom_ns_by_default <-> dns_settings zone_defaults.nameservers.type). When
//     a seed holds both forms of one value, the deprecated form wins, because that is the
//     value a seed is usually written to show; a seed read from a real account has them equal.
//   - Faults (latency, 429s, 5xx, dropped connections, always-failing zones) and a global rate
//     limit per credential, deterministic for a given Options.Rand.
//
// Ids of created objects are 32 hex characters derived from Options.Rand and a counter; list
// results come in the seed's order followed by creation order.
package emulator

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// BasePath is the prefix every route is served under.
const BasePath = "/client/v4"

// maxBody caps a request body; the real API refuses larger uploads too.
const maxBody = 8 << 20

// defaultLogLimit is how many requests the log keeps when Options.LogLimit is zero.
const defaultLogLimit = 100000

// Options configure a Server.
type Options struct {
	// AsOf is the emulator's date for dated behaviour; zero means today's date from Now.
	AsOf time.Time
	// Now is the wall clock for Retry-After windows, the rate limit and timestamps (default time.Now).
	Now func() time.Time
	// Token is the API token accepted as "Authorization: Bearer TOKEN".
	Token string
	// Email and Key are the accepted X-Auth-Email / X-Auth-Key pair.
	Email, Key string
	// Seed is the initial state: accounts, zones and every object in them. It is copied.
	Seed *inventory.Snapshot
	// Latency is added to every request (outside the state lock; a cancelled request stops waiting).
	Latency LatencySpec
	// Faults are the injected failures.
	Faults FaultSpec
	// RateLimit is the global limit per credential.
	RateLimit RateLimitSpec
	// Retire makes deprecated endpoints past their end of life answer 404 "no longer available".
	Retire bool
	// Catalog is the deprecation catalog Retire consults (default catalog.Default()).
	Catalog *catalog.Catalog
	// Rand seeds fault and latency decisions and the ids of created objects.
	Rand int64
	// ValidateExpression checks a filter or rule expression; the default is the Rules
	// language parser (see CheckExpression). The error text becomes the API error message.
	ValidateExpression func(string) error
	// LogLimit caps the request log (default 100,000 entries; the oldest are dropped).
	LogLimit int
	// OpenAPI, when set, is the API description every write is checked against before its
	// handler runs: a POST, PUT or PATCH, or a DELETE that carries a body, whose body breaks
	// its operation's request schema is answered 400 with one error per violation. Writes to
	// operations the description does not cover are served as without it.
	OpenAPI *openapi.Doc
	// AuditLogs says how the accounts' audit logs answer (audit.go); every write that
	// succeeds is recorded there.
	AuditLogs AuditLogMode
}

// Server is the emulator: an http.Handler over in-memory state. It is safe for concurrent use.
type Server struct {
	opts     Options
	now      func() time.Time
	validate func(string) error
	routes   []*route
	catalog  *catalog.Catalog
	failing  map[string]bool // zone ids that fail every request
	// declineToken authenticates the stand-in requests Serve's connections make for declined
	// ones (see serve.go); it is random so that no client can forge one.
	declineToken string

	mu sync.Mutex // guards st, audit and auditSeq
	st *state
	// audit is every account's audit log, oldest first (audit.go).
	audit    []auditEntry
	auditSeq uint64

	meta   sync.Mutex // guards the fields below
	stats  Stats
	log    []LoggedRequest
	seen   map[string]uint64
	limits map[string]*window
	// called holds the endpoints (method and path) already called once, for
	// FaultSpec.FirstCallTooMany.
	called map[string]bool
}

// Stats counts what the emulator was asked and what it answered.
type Stats struct {
	// Total is every request received, including declined and dropped ones.
	Total int
	// ByMethod counts requests per HTTP method.
	ByMethod map[string]int
	// ByPattern counts requests per route pattern, e.g. "/zones/:zone_id/firewall/rules"
	// ("(no route)" for paths the API does not serve).
	ByPattern map[string]int
	// ByRoute counts requests per method and pattern, e.g. "GET /zones/:zone_id/firewall/rules".
	ByRoute map[string]int
	// ByStatus counts responses per status code (0 for dropped or abandoned requests).
	ByStatus map[int]int
	// Writes counts requests with a method other than GET, HEAD and OPTIONS.
	Writes int
	// TooManyRequests counts 429s sent, injected or from the rate limit.
	TooManyRequests int
	// RateLimited counts 429s sent because a credential was over the global limit.
	RateLimited int
	// FaultsInjected counts injected 429s, 5xx, dropped connections and always-failing zone answers.
	FaultsInjected int
	// Dropped counts connections closed without a response.
	Dropped int
	// Declined counts requests refused at the connection for carrying Transfer-Encoding and
	// Content-Length (not those refused there for a malformed or oversized head).
	Declined int
	// Retired counts answers "no longer available" from retired endpoints.
	Retired int
	// SchemaRefused counts writes refused because their body breaks the OpenAPI description.
	SchemaRefused int
}

// LoggedRequest is one entry of the request log; headers (and so credentials) are never kept.
type LoggedRequest struct {
	Time    time.Time `json:"time"`
	Method  string    `json:"method"`
	Path    string    `json:"path"`
	Query   string    `json:"query,omitempty"`
	Pattern string    `json:"pattern,omitempty"`
	Status  int       `json:"status"`
	// Fault names an injected fault or a refusal at the connection: "429", "5xx", "drop", "lost", "zone",
	// "rate_limit", "declined" (Transfer-Encoding with Content-Length), "bad_field" (a header
	// line that is not "name: value"), "head_too_large" (a head over 1 MiB), "cancelled".
	Fault string `json:"fault,omitempty"`
}

// New builds a server over a copy of opts.Seed. It fails when no credential is configured,
// when only one of Email and Key is set, or when the seed is inconsistent (duplicate ids, a
// zone of an unknown account is fine and served without its account).
func New(opts Options) (*Server, error) {
	if opts.Token == "" && opts.Email == "" && opts.Key == "" {
		return nil, fmt.Errorf("no credentials configured: set a token, or an e-mail and a key")
	}
	if (opts.Email == "") != (opts.Key == "") {
		return nil, fmt.Errorf("e-mail and key go together: set both or neither")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ValidateExpression == nil {
		opts.ValidateExpression = CheckExpression
	}
	if opts.LogLimit <= 0 {
		opts.LogLimit = defaultLogLimit
	}
	if opts.Faults.RetryAfter == 0 {
		opts.Faults.RetryAfter = time.Second
	}
	if opts.Latency.Max < opts.Latency.Min || opts.Latency.Min < 0 {
		return nil, fmt.Errorf("latency %s: the range must be ascending and non-negative", opts.Latency)
	}
	for _, x := range []float64{opts.Faults.TooMany, opts.Faults.ServerError, opts.Faults.Drop, opts.Faults.Lost} {
		if x < 0 || x > 1 {
			return nil, fmt.Errorf("fault shares must be between 0 and 1")
		}
	}
	if opts.RateLimit.Requests < 0 || opts.RateLimit.Window < 0 {
		return nil, fmt.Errorf("rate limit %d/%s: both parts must be positive", opts.RateLimit.Requests, opts.RateLimit.Window)
	}
	if opts.Retire && opts.Catalog == nil {
		opts.Catalog = catalog.Default()
	}
	st, err := newState(opts.Seed, opts.Rand)
	if err != nil {
		return nil, err
	}
	failing, err := resolveFailingZones(st, opts.Faults.Zones)
	if err != nil {
		return nil, err
	}
	var token [16]byte
	if _, err := rand.Read(token[:]); err != nil {
		return nil, fmt.Errorf("cannot draw a random token: %w", err)
	}
	s := &Server{
		declineToken: hex.EncodeToString(token[:]),
		failing:      failing,
		opts:         opts,
		now:          opts.Now,
		validate:     opts.ValidateExpression,
		catalog:      opts.Catalog,
		st:           st,
		seen:         map[string]uint64{},
		called:       map[string]bool{},
		limits:       map[string]*window{},
		stats:        Stats{ByMethod: map[string]int{}, ByPattern: map[string]int{}, ByRoute: map[string]int{}, ByStatus: map[int]int{}},
	}
	s.routes = s.buildRoutes()
	return s, nil
}

// asOf is the emulator's current date: Options.AsOf, or today's date from the clock.
func (s *Server) asOf() time.Time {
	if !s.opts.AsOf.IsZero() {
		return s.opts.AsOf
	}
	return catalog.DateOf(s.now()).Time
}

// call is one request as a handler sees it; handlers run with the state lock held.
type call struct {
	s       *Server
	st      *state
	method  string
	path    string // relative to BasePath
	params  map[string]string
	query   url.Values
	body    []byte
	asOf    time.Time
	now     time.Time
	zone    *zoneState
	account *accountState
}

// stamp is a modification timestamp from the wall clock.
func (c *call) stamp() string { return c.now.UTC().Format("2006-01-02T15:04:05.000000Z") }

// ServeHTTP answers one API request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if reason, ok := s.standInReason(r); ok {
		s.declined(w, r, reason)
		return
	}
	entry := LoggedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	uLatency, uFault, uKind := s.draw(r)
	// A throttled first call is answered at once, as the API's rate limiter answers in
	// front of the service, without the service's latency.
	first := s.firstCall(r)
	if !first && !s.waitLatency(r, &entry, uLatency) {
		return
	}
	entry.Time = s.now()

	rel, found := strings.CutPrefix(r.URL.Path, BasePath)
	if !found || (rel != "" && rel[0] != '/') {
		s.respond(w, &entry, fail(http.StatusNotFound, CodeNoRoute, "No route for that URI"))
		return
	}
	rt, params, methodMismatch := s.match(r.Method, rel)
	if rt == nil {
		if methodMismatch != "" {
			entry.Pattern = methodMismatch
			s.respond(w, &entry, fail(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method %s not allowed for this route", r.Method))
			return
		}
		s.respond(w, &entry, fail(http.StatusNotFound, CodeNoRoute, "No route for that URI"))
		return
	}
	entry.Pattern = rt.pattern

	credential, authed := s.authenticate(r)
	if !authed {
		s.respond(w, &entry, fail(http.StatusForbidden, CodeAuth, "Authentication error"))
		return
	}
	if s.limited(w, &entry, credential) {
		return
	}

	fault := s.faultFor(uFault)
	if first {
		fault = "429"
	}
	if s.injectFault(w, &entry, fault, uKind) {
		return
	}
	if id, ok := params["zone_id"]; ok && s.zoneAlwaysFails(id) {
		entry.Fault = "zone"
		s.respond(w, &entry, fail(http.StatusInternalServerError, CodeInternal, "Internal server error (emulated failing zone)"))
		return
	}
	asOf := s.asOf()
	if rep := s.retired(r.Method, rel, asOf); rep != nil {
		s.respond(w, &entry, rep)
		return
	}

	body, rep := s.readBody(w, r, rel)
	if rep != nil {
		s.respond(w, &entry, rep)
		return
	}

	s.mu.Lock()
	c := &call{s: s, st: s.st, method: r.Method, path: rel, params: params, query: r.URL.Query(), body: body, asOf: asOf, now: entry.Time}
	rep = s.resolveScope(c)
	if rep == nil {
		rep = s.serveRoute(c, r, rt)
	}
	encoded := rep.encode()
	s.mu.Unlock()

	if fault == faultLost && s.loseAnswer(w, &entry, rep.status) {
		return
	}
	s.writeEncoded(w, &entry, rep, encoded)
}

// standInReason reports whether r is the stand-in of a request Serve's guard refused (see
// guard.go), and why it was refused.
func (s *Server) standInReason(r *http.Request) (string, bool) {
	v := r.Header.Get(declinedHeader)
	if v == "" {
		return "", false
	}
	tok, reason, _ := strings.Cut(v, " ")
	return reason, subtle.ConstantTimeCompare([]byte(tok), []byte(s.declineToken)) == 1
}

// limited answers 429 when the credential is over the global rate limit and reports whether
// it did; otherwise it sets the rate limit headers of the answer to come.
func (s *Server) limited(w http.ResponseWriter, entry *LoggedRequest, credential string) bool {
	retryAfter, limited, hdr := s.rateLimit(credential, entry.Time)
	if !limited {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		return false
	}
	entry.Fault = "rate_limit"
	rep := fail(http.StatusTooManyRequests, CodeRateLimited, "Please wait and consider throttling your request speed")
	rep.header = hdr
	rep.header.Set("Retry-After", strconv.Itoa(retryAfter))
	s.respond(w, entry, rep)
	return true
}

// dropConnection closes the request's connection without an answer. Without a hijackable
// connection, aborting the handler is how net/http drops a response.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// injectFault answers with the injected fault of kind ("drop", "429", "5xx") and reports
// whether it did; uKind picks the 5xx status.
func (s *Server) injectFault(w http.ResponseWriter, entry *LoggedRequest, kind string, uKind float64) bool {
	switch kind {
	case "drop":
		entry.Fault = "drop"
		s.record(*entry)
		dropConnection(w)
		return true
	case "429":
		entry.Fault = "429"
		rep := fail(http.StatusTooManyRequests, CodeRateLimited, "Please wait and consider throttling your request speed")
		rep.header = http.Header{"Retry-After": {strconv.Itoa(ceilSeconds(s.opts.Faults.RetryAfter))}}
		s.respond(w, entry, rep)
		return true
	case "5xx":
		entry.Fault = "5xx"
		statuses := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
		st := statuses[int(uKind*float64(len(statuses)))%len(statuses)]
		s.respond(w, entry, fail(st, CodeInternal, "Internal server error (emulated fault %d)", st))
		return true
	}
	return false
}

// waitLatency waits out the request's latency; false when the request was cancelled
// meanwhile (it is then recorded as such).
func (s *Server) waitLatency(r *http.Request, entry *LoggedRequest, u float64) bool {
	d := s.latencyFor(u)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		entry.Fault = "cancelled"
		s.record(*entry)
		return false
	case <-t.C:
		return true
	}
}

// firstCall reports whether r is the first call of its endpoint (method and path) while
// FaultSpec.FirstCallTooMany is on, and marks the endpoint called. Such a call is answered
// 429 without the configured latency.
func (s *Server) firstCall(r *http.Request) bool {
	if !s.opts.Faults.FirstCallTooMany {
		return false
	}
	key := r.Method + " " + r.URL.Path
	s.meta.Lock()
	defer s.meta.Unlock()
	if s.called[key] {
		return false
	}
	s.called[key] = true
	return true
}

// respond writes a reply that needs no state and records the request.
func (s *Server) respond(w http.ResponseWriter, entry *LoggedRequest, rep *reply) {
	s.writeEncoded(w, entry, rep, rep.encode())
}

func (s *Server) writeEncoded(w http.ResponseWriter, entry *LoggedRequest, rep *reply, body []byte) {
	if entry.Time.IsZero() {
		entry.Time = s.now()
	}
	entry.Status = rep.status
	s.record(*entry)
	h := w.Header()
	for k, vs := range rep.header {
		h[k] = vs
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rep.status)
	_, _ = w.Write(body)
}

// resolveScope finds the zone or account a route names; an unknown one is a 404 like the
// real API's "could not route".
func (s *Server) resolveScope(c *call) *reply {
	if id, ok := c.params["zone_id"]; ok {
		z := c.st.zoneByID[id]
		if z == nil {
			return fail(http.StatusNotFound, CodeBadIdentifier, "Could not route to %s, perhaps your object identifier is invalid?", c.path)
		}
		c.zone = z
	}
	for _, key := range []string{"account_id", "org_id"} {
		if id, ok := c.params[key]; ok {
			a := c.st.accountByID[id]
			if a == nil {
				return fail(http.StatusNotFound, CodeBadIdentifier, "Could not route to %s, perhaps your object identifier is invalid?", c.path)
			}
			c.account = a
		}
	}
	return nil
}

// authenticate checks either credential scheme and returns a key naming the credential
// (never the secret itself) for the rate limit.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if s.opts.Token != "" {
		if tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found &&
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.opts.Token)) == 1 {
			return "token", true
		}
	}
	if s.opts.Email != "" {
		email, key := r.Header.Get("X-Auth-Email"), r.Header.Get("X-Auth-Key")
		if strings.EqualFold(email, s.opts.Email) && subtle.ConstantTimeCompare([]byte(key), []byte(s.opts.Key)) == 1 {
			return "key:" + strings.ToLower(email), true
		}
	}
	return "", false
}

// record adds a request to the log and the counters.
func (s *Server) record(e LoggedRequest) {
	s.meta.Lock()
	defer s.meta.Unlock()
	st := &s.stats
	st.Total++
	st.ByMethod[e.Method]++
	pattern := e.Pattern
	if pattern == "" {
		pattern = "(no route)"
	}
	st.ByPattern[pattern]++
	st.ByRoute[e.Method+" "+pattern]++
	st.ByStatus[e.Status]++
	switch e.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		st.Writes++
	}
	if e.Status == http.StatusTooManyRequests {
		st.TooManyRequests++
	}
	switch e.Fault {
	case "rate_limit":
		st.RateLimited++
	case "429", "5xx", "zone":
		st.FaultsInjected++
	case "drop", faultLost:
		st.FaultsInjected++
		st.Dropped++
	case "declined":
		st.Declined++
	}
	if len(s.log) >= s.opts.LogLimit {
		// Drop the oldest tenth at once so appends stay amortised O(1).
		cut := max(1, s.opts.LogLimit/10)
		s.log = append(s.log[:0], s.log[cut:]...)
	}
	s.log = append(s.log, e)
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.meta.Lock()
	defer s.meta.Unlock()
	out := s.stats
	out.ByMethod = copyMap(s.stats.ByMethod)
	out.ByPattern = copyMap(s.stats.ByPattern)
	out.ByRoute = copyMap(s.stats.ByRoute)
	out.ByStatus = copyMap(s.stats.ByStatus)
	return out
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Requests returns the request log, oldest first.
func (s *Server) Requests() []LoggedRequest {
	s.meta.Lock()
	defer s.meta.Unlock()
	return append([]LoggedRequest(nil), s.log...)
}

// Replacements returns an account's Access applications and notification policies (the
// replacements of bookmarks and pools' notification_email; Snapshot holds them only where a
// collection reads them) as the API lists them, deep copies in creation order; nil for an
// unknown account.
func (s *Server) Replacements(accountID string) (apps, policies []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.accountByID[accountID]
	if a == nil {
		return nil, nil
	}
	return copyObjects(a.apps), copyObjects(a.policies)
}

func copyObjects(objs []*object) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		raw, _ := json.Marshal(o)
		_ = json.Unmarshal(raw, &out[i])
	}
	return out
}

// Snapshot returns the current state, sorted: what a complete collection would read, with the
// deprecated forms of reflected settings derived from their replacements, and an account's
// Access applications and notification policies only where a collection reads them (see
// inventory.AccountInventory.NeedsAccessApps, NeedsNotificationPolicies).
func (s *Server) Snapshot() *inventory.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.st.snapshot(s.asOf())
	snap.Sort()
	return snap
}

// route is one method and path pattern with its handler.
type route struct {
	method  string
	pattern string
	segs    []string
	h       func(*call) *reply
}

// answers reports whether the route serves requests of the method: its own, and HEAD for a
// GET route.
func (rt *route) answers(method string) bool {
	return rt.method == method || method == http.MethodHead && rt.method == http.MethodGet
}

// match finds the route for a method and a path relative to BasePath; literal segments win
// over parameters. When the path matches but the method does not, the pattern is returned.
func (s *Server) match(method, rel string) (*route, map[string]string, string) {
	segs := splitPath(rel)
	var best *route
	bestLiterals := -1
	var bestParams map[string]string
	mismatch := ""
	for _, rt := range s.routes {
		if len(rt.segs) != len(segs) {
			continue
		}
		params, literals, matched := matchSegs(rt.segs, segs)
		if !matched {
			continue
		}
		if !rt.answers(method) {
			if mismatch == "" {
				mismatch = rt.pattern
			}
			continue
		}
		if literals > bestLiterals {
			best, bestLiterals, bestParams = rt, literals, params
		}
	}
	if best != nil {
		return best, bestParams, ""
	}
	return nil, nil, mismatch
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func matchSegs(pattern, segs []string) (map[string]string, int, bool) {
	var params map[string]string
	literals := 0
	for i, p := range pattern {
		if strings.HasPrefix(p, ":") {
			if segs[i] == "" {
				return nil, 0, false
			}
			if params == nil {
				params = map[string]string{}
			}
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				return nil, 0, false
			}
			params[p[1:]] = v
			continue
		}
		if p != segs[i] {
			return nil, 0, false
		}
		literals++
	}
	return params, literals, true
}

// Routes lists the served routes as "METHOD /pattern", sorted.
func (s *Server) Routes() []string {
	out := make([]string, 0, len(s.routes))
	for _, rt := range s.routes {
		out = append(out, rt.method+" "+rt.pattern)
	}
	sort.Strings(out)
	return out
}

// handle registers a route; patterns use ":name" segments, ":zone_id" and ":account_id" (or
// ":org_id") resolve the zone or account before the handler runs.
func (s *Server) handle(method, pattern string, h func(*call) *reply) {
	s.routes = append(s.routes, &route{method: method, pattern: pattern, segs: splitPath(pattern), h: h})
}

// decode reads the JSON request body into v.
func (c *call) decode(v any) *reply {
	if len(bytes.TrimSpace(c.body)) == 0 {
		return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: the body is empty")
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
	}
	return nil
}

// ceilSeconds rounds a duration up to whole seconds, at least 1, for Retry-After.
func ceilSeconds(d time.Duration) int {
	n := int((d + time.Second - 1) / time.Second)
	return max(n, 1)
}
