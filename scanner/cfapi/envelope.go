package cfapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ResultInfo is the pagination block of a list response. Members the API may leave out are
// pointers: total_pages is often missing, and some fixtures carry only page and count.
type ResultInfo struct {
	Page       int  `json:"page"`
	PerPage    int  `json:"per_page"`
	Count      *int `json:"count,omitempty"`
	TotalCount *int `json:"total_count,omitempty"`
	TotalPages *int `json:"total_pages,omitempty"`
}

// envelope is the response wrapper {result, success, errors, messages, result_info}.
// success is a pointer: one recorded fixture carries only result, which is read as success.
type envelope struct {
	Result     json.RawMessage `json:"result"`
	Success    *bool           `json:"success"`
	Errors     []ErrorDetail   `json:"errors"`
	Messages   []ErrorDetail   `json:"messages"`
	ResultInfo *ResultInfo     `json:"result_info"`
}

// maxExcerpt bounds the part of a non-JSON body kept in an Error.
const maxExcerpt = 200

// wireEnvelope tells a member sent as null (RawMessage "null") from an absent one (nil).
type wireEnvelope struct {
	Result     json.RawMessage `json:"result"`
	Success    *bool           `json:"success"`
	Errors     json.RawMessage `json:"errors"`
	Messages   json.RawMessage `json:"messages"`
	ResultInfo *ResultInfo     `json:"result_info"`
}

// parseEnvelope decodes body as an envelope in one pass over the body; ok is false when it
// is not a JSON object with at least one of result, success, errors (a plain text 404, an
// HTML error page, some other JSON).
func parseEnvelope(body []byte) (env envelope, ok bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' {
		return envelope{}, false
	}
	var w wireEnvelope
	if json.Unmarshal(t, &w) != nil {
		return envelope{}, false
	}
	if w.Result == nil && w.Success == nil && w.Errors == nil {
		return envelope{}, false
	}
	env = envelope{Result: w.Result, Success: w.Success, ResultInfo: w.ResultInfo}
	// errors and messages are small; a malformed one must not hide the result or status.
	_ = decodeDetails(w.Errors, &env.Errors)
	_ = decodeDetails(w.Messages, &env.Messages)
	return env, true
}

// decodeDetails decodes an errors or messages array; null, absent or malformed gives nil.
func decodeDetails(raw json.RawMessage, out *[]ErrorDetail) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		*out = nil
		return err
	}
	return nil
}

// redactedExcerpt returns the start of a body as printable text for an error message. Every
// secret is redacted before the text is cut: cut first, a secret straddling the cut would
// keep the part before it. whole is false when body is only the first bytes of a longer
// body; a secret's first characters at its end are then dropped too.
func redactedExcerpt(body []byte, whole bool, secrets []string) string {
	s := string(body)
	if !whole {
		s = dropPartialSecret(s, secrets)
	}
	s = scrub(strings.TrimSpace(s), secrets)
	if len(s) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = dropPartialSecret(s[:cut], secrets) + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// dropPartialSecret removes the longest end of s that is the beginning of a secret: what a
// cut through that secret would leave (after scrub, no whole secret is left to find).
func dropPartialSecret(s string, secrets []string) string {
	longest := 0
	for _, sec := range secrets {
		for k := min(len(sec)-1, len(s)); k > longest; k-- {
			if strings.HasSuffix(s, sec[:k]) {
				longest = k
				break
			}
		}
	}
	return s[:len(s)-longest]
}

// errNullList is the failure of a list page whose success carried no result array.
var errNullList = errors.New("the list's result is null or missing: nothing was read")

// isNull reports whether a result member is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// decodeResult decodes an envelope's result into out (nil out skips it). A JSON null result
// leaves out untouched.
func decodeResult(raw json.RawMessage, out any) error {
	if out == nil || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding result: %w", err)
	}
	return nil
}
