package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Error codes the emulator answers with. The ones marked "observed" are codes the real API is
// known to send (domain-facts.md); the others have no published value, so the emulator picks
// a stable number and a clear message.
const (
	// CodeDNSValidation wraps a DNS record validation error in error_chain before 2024-10-01 (observed, spec).
	CodeDNSValidation = 1004
	// CodeBadQuery is a bad page, per_page or other query parameter (emulator's choice).
	CodeBadQuery = 1001
	// CodeUnknownSetting is a zone setting name the emulator does not hold (emulator's choice).
	CodeUnknownSetting = 1003
	// CodeInvalidSettingValue is a value a zone or DNS setting does not accept (emulator's choice).
	CodeInvalidSettingValue = 1007
	// CodeBadHeaders refuses a request head at the connection: both Transfer-Encoding and
	// Content-Length, a malformed header line, or a head over 1 MiB (emulator's choice).
	CodeBadHeaders = 6003
	// CodeMalformedJSON is a request body that is not the JSON the endpoint expects.
	CodeMalformedJSON = 6007
	// CodeNoRoute is a path the API does not serve, or a retired endpoint.
	CodeNoRoute = 7000
	// CodeMethodNotAllowed is a method the path does not accept (emulator's choice).
	CodeMethodNotAllowed = 7001
	// CodeBadIdentifier is an unknown zone or account identifier in the path.
	CodeBadIdentifier = 7003
	// CodeRateLimited comes with every 429.
	CodeRateLimited = 971
	// CodeAuth is a missing or wrong credential (observed).
	CodeAuth = 10000
	// CodeInvalid is an invalid field of a request body (emulator's choice).
	CodeInvalid = 10001
	// CodeSchema is a request body that breaks its operation's schema in the OpenAPI
	// description (Options.OpenAPI). No code is published or recorded for it: the corpus's one
	// recorded refusal of a body (rate_limits.create.error_400) carries a message and no code.
	// It is CodeInvalid, the emulator's code for an invalid member of a body.
	CodeSchema = CodeInvalid
	// CodeNoEntrypoint is GET of a phase entry point that does not exist (observed).
	CodeNoEntrypoint = 10003
	// CodeNotFound is an object id that does not exist in the zone or account (emulator's choice).
	CodeNotFound = 10007
	// CodeInvalidExpression is a filter or rule expression that does not parse (emulator's choice).
	CodeInvalidExpression = 10014
	// CodeFilterInUse refuses deleting a filter that a firewall rule refers to (emulator's choice).
	CodeFilterInUse = 10015
	// CodeFilterProtected refuses PUT of a filter created by the combined call (emulator's choice).
	CodeFilterProtected = 10016
	// CodeFeatureUnavailable is a rule asking for a feature the zone's plan lacks (emulator's choice).
	CodeFeatureUnavailable = 10020
	// CodeQuotaExceeded is a rule or rate limit beyond the plan's quota (emulator's choice).
	CodeQuotaExceeded = 10021
	// CodeDuplicateFilter is a filter whose expression another filter of the zone already has (observed).
	CodeDuplicateFilter = 10102
	// CodeBlankExpression is an empty filter expression (observed).
	CodeBlankExpression = 20125
	// CodeTooManyRulesets refuses a second zone ruleset for a phase that has its entry point
	// (observed code, domain-facts "Quotas per plan").
	CodeTooManyRulesets = 20217
	// CodeInternal comes with an injected 5xx (emulator's choice).
	CodeInternal = 10500
	// CodeDNSDuplicate is an identical DNS record that already exists.
	CodeDNSDuplicate = 81057
	// CodeDNSConflict is a CNAME next to another record of the same name.
	CodeDNSConflict = 81053
	// CodeDNSBadType is a missing or unknown DNS record type (emulator's choice).
	CodeDNSBadType = 9020
	// CodeDNSBadName is an empty or malformed record name, or one outside the zone (emulator's choice).
	CodeDNSBadName = 9000
	// CodeDNSBadContent is content that does not fit the record type (emulator's choice).
	CodeDNSBadContent = 9005
	// CodeDNSBadTTL is a TTL other than 1 (automatic) or 60..86400 (emulator's choice).
	CodeDNSBadTTL = 9021
	// CodeDNSBadSRV is SRV data without priority, weight, port or target (emulator's choice).
	CodeDNSBadSRV = 9101
	// CodeDNSSRVDeprecatedFields refuses data.service/proto/name after 2024-05-31 (emulator's choice).
	CodeDNSSRVDeprecatedFields = 9102
)

// APIError is one member of an envelope's errors array.
type APIError struct {
	Code       int        `json:"code"`
	Message    string     `json:"message"`
	ErrorChain []APIError `json:"error_chain,omitempty"`
	// Source locates the member of the request body the error is about (newer API errors).
	Source *ErrorSource `json:"source,omitempty"`
}

// ErrorSource is the source of an error: the JSON pointer of the offending request member.
type ErrorSource struct {
	Pointer string `json:"pointer"`
}

// Message is one member of an envelope's messages array.
type Message struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message"`
}

// ResultInfo is the pagination block of list responses.
type ResultInfo struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Count      int `json:"count"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

// Envelope is the response envelope as a client decodes it; the emulator writes every JSON
// response in this shape.
type Envelope struct {
	Result     json.RawMessage `json:"result"`
	Success    bool            `json:"success"`
	Errors     []APIError      `json:"errors"`
	Messages   []Message       `json:"messages"`
	ResultInfo *ResultInfo     `json:"result_info,omitempty"`
}

// outEnvelope is the encoding side of Envelope.
type outEnvelope struct {
	Result     any         `json:"result"`
	Success    bool        `json:"success"`
	Errors     []APIError  `json:"errors"`
	Messages   []Message   `json:"messages"`
	ResultInfo *ResultInfo `json:"result_info,omitempty"`
}

// reply is what a handler returns: a status and an envelope, plus response headers.
type reply struct {
	status   int
	result   any
	info     *ResultInfo
	errors   []APIError
	messages []Message
	header   http.Header
}

func ok(result any) *reply { return &reply{status: http.StatusOK, result: result} }

func okList(result any, info *ResultInfo) *reply {
	return &reply{status: http.StatusOK, result: result, info: info}
}

func fail(status, code int, format string, args ...any) *reply {
	return &reply{status: status, errors: []APIError{{Code: code, Message: fmt.Sprintf(format, args...)}}}
}

func failErrors(status int, errs ...APIError) *reply {
	return &reply{status: status, errors: errs}
}

func notFound(kind, id string) *reply {
	return fail(http.StatusNotFound, CodeNotFound, "%s %q not found", kind, id)
}

func invalid(format string, args ...any) *reply {
	return fail(http.StatusBadRequest, CodeInvalid, format, args...)
}

// encode renders the reply's envelope; results are encoded while the state lock is held so
// that nothing outside the lock reads shared objects.
func (r *reply) encode() []byte {
	env := outEnvelope{Result: r.result, Success: len(r.errors) == 0, Errors: r.errors, Messages: r.messages, ResultInfo: r.info}
	if env.Errors == nil {
		env.Errors = []APIError{}
	}
	if env.Messages == nil {
		env.Messages = []Message{}
	}
	if !env.Success {
		env.Result = nil
		env.ResultInfo = nil
	}
	b, err := json.Marshal(env)
	if err != nil {
		// Only a programming error can get here (every result is a plain JSON type); answer
		// with a well-formed envelope rather than a half-written body.
		b, _ = json.Marshal(outEnvelope{Errors: []APIError{{Code: CodeInternal, Message: "emulator could not encode the result: " + err.Error()}}, Messages: []Message{}})
		r.status = http.StatusInternalServerError
	}
	return b
}

// paging is a page request, read from the query and checked against an endpoint's maximum.
type paging struct {
	page, perPage int
}

// pageLimits are an endpoint's default and maximum per_page (domain-facts "Pagination").
type pageLimits struct{ def, max int }

// Per-endpoint page sizes. Over the maximum the emulator answers 400 like the real API does,
// rather than clamping, so a client that asks for too much learns it in tests.
var (
	pageZones      = pageLimits{20, 50}
	pageAccounts   = pageLimits{20, 50}
	pageFirewall   = pageLimits{25, 100}
	pageFilters    = pageLimits{25, 100}
	pageWAF        = pageLimits{50, 100}
	pageRateLimits = pageLimits{10, 1000}
	pageDNSRecords = pageLimits{100, 5000000}
	pageOther      = pageLimits{25, 1000}
)

// readPaging reads page and per_page; a malformed or out-of-range value is a 400.
func readPaging(c *call, lim pageLimits) (paging, *reply) {
	p := paging{page: 1, perPage: lim.def}
	if v := c.query.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, fail(http.StatusBadRequest, CodeBadQuery, "page must be a positive integer, got %q", v)
		}
		p.page = n
	}
	if v := c.query.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > lim.max {
			return p, fail(http.StatusBadRequest, CodeBadQuery, "per_page must be an integer between 1 and %d for this endpoint, got %q", lim.max, v)
		}
		p.perPage = n
	}
	return p, nil
}

// paginate cuts one page out of items and describes it.
func paginate[T any](c *call, items []T, lim pageLimits) ([]T, *ResultInfo, *reply) {
	p, bad := readPaging(c, lim)
	if bad != nil {
		return nil, nil, bad
	}
	total := len(items)
	pages := (total + p.perPage - 1) / p.perPage
	start := (p.page - 1) * p.perPage
	if start > total {
		start = total
	}
	end := min(start+p.perPage, total)
	out := items[start:end]
	if out == nil {
		out = []T{}
	}
	return out, &ResultInfo{Page: p.page, PerPage: p.perPage, Count: len(out), TotalCount: total, TotalPages: pages}, nil
}

// renderPage paginates items first and renders only the page, so a long list costs one
// render per returned item, not per stored one.
func renderPage[P, T any](c *call, items []P, lim pageLimits, render func(P) T) *reply {
	page, info, bad := paginate(c, items, lim)
	if bad != nil {
		return bad
	}
	out := make([]T, len(page))
	for i, x := range page {
		out[i] = render(x)
	}
	return okList(out, info)
}

// listReply paginates items and wraps them in a list envelope.
func listReply[T any](c *call, items []T, lim pageLimits) *reply {
	page, info, bad := paginate(c, items, lim)
	if bad != nil {
		return bad
	}
	return okList(page, info)
}
