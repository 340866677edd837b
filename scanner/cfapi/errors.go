package cfapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error codes with a meaning the client knows.
const (
	// CodeAuth is the API's "authentication error" code.
	CodeAuth = 10000
	// CodeNoEntrypoint is the code seen when a phase has no entry point ruleset yet.
	CodeNoEntrypoint = 10003
	// CodeDNSValidation is the wrapper code of DNS record validation errors before
	// 2024-10-01; the root cause is in its error_chain.
	CodeDNSValidation = 1004
)

// ErrorDetail is one member of an envelope's errors or messages array. Code is 0 when the
// API sent none (some errors lack it); Chain is the error_chain of the older DNS
// validation representation.
type ErrorDetail struct {
	Code             int           `json:"code,omitempty"`
	Message          string        `json:"message"`
	DocumentationURL string        `json:"documentation_url,omitempty"`
	Source           *ErrorSource  `json:"source,omitempty"`
	Chain            []ErrorDetail `json:"error_chain,omitempty"`
}

// ErrorSource points at the part of the request an error is about.
type ErrorSource struct {
	Pointer string `json:"pointer,omitempty"`
}

// UnmarshalJSON accepts the object form, a bare string (seen in old messages arrays), and a
// code sent as a number or a numeric string.
func (d *ErrorDetail) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*d = ErrorDetail{}
		return json.Unmarshal(b, &d.Message)
	}
	var w struct {
		Code             json.RawMessage `json:"code"`
		Message          string          `json:"message"`
		DocumentationURL string          `json:"documentation_url"`
		Source           *ErrorSource    `json:"source"`
		Chain            []ErrorDetail   `json:"error_chain"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = ErrorDetail{Message: w.Message, DocumentationURL: w.DocumentationURL, Source: w.Source, Chain: w.Chain}
	if c := strings.Trim(string(w.Code), `"`); c != "" && c != "null" {
		n, err := strconv.Atoi(c)
		if err != nil {
			return fmt.Errorf("error code %s is not an integer", w.Code)
		}
		d.Code = n
	}
	return nil
}

// String renders "[code] message" ("message" alone without a code), followed by the chain.
func (d ErrorDetail) String() string {
	var b strings.Builder
	if d.Code != 0 {
		fmt.Fprintf(&b, "[%d] ", d.Code)
	}
	b.WriteString(d.Message)
	if len(d.Chain) > 0 {
		parts := make([]string, len(d.Chain))
		for i, c := range d.Chain {
			parts[i] = c.String()
		}
		b.WriteString(" (caused by: " + strings.Join(parts, "; ") + ")")
	}
	return b.String()
}

// rootCause follows error_chain to its last, deepest member.
func (d ErrorDetail) rootCause() ErrorDetail {
	for len(d.Chain) > 0 {
		d = d.Chain[len(d.Chain)-1]
	}
	return d
}

// Error is a failed API call. It carries the HTTP status (0 when no response came), the
// envelope's errors and messages, the method and the path of the request (relative to the
// base URL, without the query), and never any header or credential. Use errors.As to get it.
type Error struct {
	Method string
	// Path is the escaped request path relative to the base URL, without query.
	Path string
	// Status is the HTTP status code, 0 when the request never got a response.
	Status int
	// Errors and Messages are the envelope's arrays, when the body was an envelope.
	Errors   []ErrorDetail
	Messages []ErrorDetail
	// Body is a short excerpt of a body that was not a JSON envelope (a plain text 404).
	Body string
	// Attempts is how many times the request was sent.
	Attempts int
	// Deprecated is set when the request went to an endpoint of a deprecation notice; it
	// widens Retired (see there).
	Deprecated bool
	// Err is the underlying cause: a transport error, a decode error or a context error.
	Err error
}

// Error renders "GET /zones/ID/filters: HTTP 404: [code] message; ...".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(e.Path)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
	}
	if len(e.Errors) > 0 {
		parts := make([]string, len(e.Errors))
		for i, d := range e.Errors {
			parts[i] = d.String()
		}
		b.WriteString(": " + strings.Join(parts, "; "))
	} else if e.Body != "" {
		fmt.Fprintf(&b, ": %q", e.Body)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the underlying cause, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.Err }

// Codes returns every error code of the envelope, those inside error_chain included, in
// order of appearance.
func (e *Error) Codes() []int {
	var out []int
	var walk func([]ErrorDetail)
	walk = func(ds []ErrorDetail) {
		for _, d := range ds {
			if d.Code != 0 {
				out = append(out, d.Code)
			}
			walk(d.Chain)
		}
	}
	walk(e.Errors)
	return out
}

// HasCode reports whether code is among Codes.
func (e *Error) HasCode(code int) bool {
	for _, c := range e.Codes() {
		if c == code {
			return true
		}
	}
	return false
}

// RootCause returns the error that explains the failure, the same for both representations
// of a DNS validation error: before 2024-10-01 the first error is code 1004 "DNS Validation
// Error" with the cause in error_chain (the chain's deepest member is returned); after it
// the cause stands directly in errors (the first error is returned). ok is false when the
// response carried no error object.
func (e *Error) RootCause() (d ErrorDetail, ok bool) {
	if len(e.Errors) == 0 {
		return ErrorDetail{}, false
	}
	return e.Errors[0].rootCause(), true
}

// UsesErrorChain reports whether the response used the pre-2024-10-01 representation (an
// error with an error_chain), which a caller may want to flag.
func (e *Error) UsesErrorChain() bool {
	for _, d := range e.Errors {
		if len(d.Chain) > 0 {
			return true
		}
	}
	return false
}

// Retired reports whether the answer means "this endpoint is past its end of life here"
// rather than a failure. The rule, exactly:
//   - HTTP 404 and 410 are retired, on any route;
//   - on a route of a deprecation notice (Deprecated set by the typed method), every other
//     4xx is retired too (400, 405, 409, 422, ...), except 401, 403 (authentication and
//     permission, see IsAuth) and 429 (rate limiting);
//   - nothing else is: 2xx with success false, 5xx and transport errors are failures.
func (e *Error) Retired() bool {
	switch {
	case e.Status == http.StatusNotFound || e.Status == http.StatusGone:
		return true
	case e.Status < 400 || e.Status > 499:
		return false
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden || e.Status == http.StatusTooManyRequests:
		return false
	}
	return e.Deprecated
}

// Auth reports whether the failure is about authentication or permission: HTTP 401 or 403,
// or the authentication error code 10000 at any status.
func (e *Error) Auth() bool {
	return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden || e.HasCode(CodeAuth)
}

// IsRetired reports whether err is an *Error whose Retired is true.
func IsRetired(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retired()
}

// IsAuth reports whether err is an *Error whose Auth is true.
func IsAuth(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Auth()
}

// IsNotFound reports whether err is an *Error with HTTP status 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// scrub replaces every secret in s with a marker, so an error that echoes a request header
// back cannot leak it.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

func scrubDetails(ds []ErrorDetail, secrets []string) {
	for i := range ds {
		ds[i].Message = scrub(ds[i].Message, secrets)
		ds[i].DocumentationURL = scrub(ds[i].DocumentationURL, secrets)
		if ds[i].Source != nil {
			ds[i].Source.Pointer = scrub(ds[i].Source.Pointer, secrets)
		}
		scrubDetails(ds[i].Chain, secrets)
	}
}
