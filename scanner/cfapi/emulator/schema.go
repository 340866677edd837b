package emulator

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
)

// maxSchemaErrors caps the errors of one refused body; the rest are summed up in one more.
const maxSchemaErrors = 20

// readBody reads the request body and, with Options.OpenAPI, checks a write's body against
// its operation's request schema. The reply is non-nil when the request must be refused.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, rel string) ([]byte, *reply) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			return nil, fail(http.StatusRequestEntityTooLarge, CodeMalformedJSON, "request body could not be read: %v", err)
		}
		body = b
	}
	if s.opts.OpenAPI == nil || !checkedWrite(r.Method, body) {
		return body, nil
	}
	err := s.opts.OpenAPI.ValidateRequest(r.Method, rel, body)
	var ve *openapi.ValidationError
	if err == nil || errors.Is(err, openapi.ErrNoOperation) || !errors.As(err, &ve) {
		return body, nil
	}
	s.meta.Lock()
	s.stats.SchemaRefused++
	s.meta.Unlock()
	return nil, schemaRefusal(ve)
}

// checkedWrite reports whether a request's body is checked: POST, PUT and PATCH always (an
// empty body where one is required is refused too), DELETE only when it carries a body.
func checkedWrite(method string, body []byte) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return true
	case http.MethodDelete:
		return len(bytes.TrimSpace(body)) > 0
	}
	return false
}

// schemaRefusal is the API's error envelope for a body that breaks its schema: one error per
// violation, the message naming the member's JSON pointer and the rule, and source.pointer
// holding the pointer as newer API errors do (domain-facts "Pagination, limits, errors").
func schemaRefusal(ve *openapi.ValidationError) *reply {
	errs := make([]APIError, 0, min(len(ve.Violations), maxSchemaErrors+1))
	for i, v := range ve.Violations {
		if i == maxSchemaErrors {
			errs = append(errs, APIError{Code: CodeSchema, Message: "and more violations of the request schema of " + ve.Operation.String()})
			break
		}
		errs = append(errs, APIError{Code: CodeSchema, Message: "request body: " + v.String(), Source: &ErrorSource{Pointer: v.Pointer}})
	}
	return failErrors(http.StatusBadRequest, errs...)
}
