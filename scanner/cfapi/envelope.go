package cfapi

import (
	"encoding/json"
	"errors"
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

// envelope is the response wrapper {result, success, errors, messages, result_info}, less
// the result, which is decoded straight into the caller's value (see decodeStream).
// success is a pointer: one recorded fixture carries only result, which is read as success.
type envelope struct {
	Success    *bool
	Errors     []ErrorDetail
	Messages   []ErrorDetail
	ResultInfo *ResultInfo
}

// maxExcerpt bounds the part of a non-JSON body kept in an Error.
const maxExcerpt = 200

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
	// Invalid bytes are replaced first: a replacement must not complete a secret after scrub.
	s := string(body)
	if !whole {
		s = dropPartialSecret(s, secrets)
	}
	s = scrub(strings.ToValidUTF8(strings.TrimSpace(s), "?"), secrets)
	if len(s) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = dropPartialSecret(s[:cut], secrets) + "..."
	}
	return s
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
