package cfapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"unicode"
)

// resultKind tells what an envelope's result member was.
type resultKind int

const (
	resultAbsent resultKind = iota
	resultNull
	resultValue
)

// decoded is what decodeStream read from a body.
type decoded struct {
	env envelope
	// isEnv: the body is a JSON object (alone, between white space) with at least one of
	// result, success (not null) or errors; anything else (a plain text 404, an HTML page,
	// other JSON, broken JSON) is not an envelope.
	isEnv bool
	// empty: the body is empty or white space.
	empty     bool
	result    resultKind
	errorsSet bool
	// resultErr is the error decoding the result into out; the rest of the envelope was
	// still read (a success false must win over a result of the wrong shape).
	resultErr error
}

// decodeStream decodes an envelope from r as it streams in, the result straight into out
// (nil out skips it). A list result (out points to a slice) is decoded one element at a
// time, so only one element's JSON is buffered at once, never the body. Members are matched
// case-insensitively, a later duplicate wins and errors/messages are decoded leniently
// (decodeDetails), as encoding/json reads the envelope struct; a read failure of r shows as
// "not an envelope", and the caller asks r why.
func decodeStream(r io.Reader, out any) decoded {
	br := bufio.NewReader(r)
	if !skipSpace(br) {
		return decoded{empty: true}
	}
	if b, err := br.Peek(1); err != nil || b[0] != '{' {
		return decoded{}
	}
	dec := json.NewDecoder(br)
	var d decoded
	if _, err := dec.Token(); err != nil { // the '{' just seen
		return decoded{}
	}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey || !d.member(dec, key, out) {
			return decoded{}
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return decoded{}
	}
	if !onlySpace(bufio.NewReader(io.MultiReader(dec.Buffered(), br))) {
		return decoded{}
	}
	d.isEnv = d.result != resultAbsent || d.env.Success != nil || d.errorsSet
	return d
}

// member decodes the value of one envelope member; false means the body is not an
// envelope (broken JSON, or success/result_info of the wrong type).
func (d *decoded) member(dec *json.Decoder, key string, out any) bool {
	switch {
	case strings.EqualFold(key, "result"):
		kind, err, ok := decodeResultValue(dec, out)
		if !ok {
			return false
		}
		d.result, d.resultErr = kind, err // a later duplicate wins, as in encoding/json
	case strings.EqualFold(key, "success"):
		return dec.Decode(&d.env.Success) == nil
	case strings.EqualFold(key, "result_info"):
		return dec.Decode(&d.env.ResultInfo) == nil
	case strings.EqualFold(key, "errors"), strings.EqualFold(key, "messages"):
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return false
		}
		if strings.EqualFold(key, "errors") {
			d.errorsSet = true
			_ = decodeDetails(raw, &d.env.Errors) // a malformed one must not hide the result or status
		} else {
			_ = decodeDetails(raw, &d.env.Messages)
		}
	default:
		_, err := skipValue(dec)
		return err == nil
	}
	return true
}

// decodeResultValue decodes the result member into out. err is a value that does not fit
// out (the JSON goes on); ok is false when the JSON itself is broken.
func decodeResultValue(dec *json.Decoder, out any) (kind resultKind, err error, ok bool) {
	if out == nil {
		null, err := skipValue(dec)
		return kindOf(null), nil, err == nil
	}
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero() // only the last of duplicate result members counts
	}
	if streamable(v) {
		return streamSlice(dec, v.Elem())
	}
	nc := &nullCheck{out: out}
	at := dec.InputOffset()
	if err := dec.Decode(nc); err != nil {
		return resultValue, err, !broken(err) && dec.InputOffset() != at
	}
	return kindOf(nc.null), nil, true
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// streamable reports whether out points to a slice decoded element by element: not bytes
// (base64 text) and not a type that decodes itself (json.RawMessage).
func streamable(v reflect.Value) bool {
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Slice {
		return false
	}
	t := v.Elem().Type()
	return t.Elem().Kind() != reflect.Uint8 && !t.Implements(unmarshalerType) && !reflect.PointerTo(t).Implements(unmarshalerType)
}

func kindOf(null bool) resultKind {
	if null {
		return resultNull
	}
	return resultValue
}

// streamSlice decodes a JSON array into the slice sv one element at a time.
func streamSlice(dec *json.Decoder, sv reflect.Value) (kind resultKind, err error, ok bool) {
	tok, err := dec.Token()
	if err != nil {
		return resultValue, nil, false
	}
	if tok == nil {
		return resultNull, nil, true
	}
	if tok != json.Delim('[') {
		what := map[bool]string{true: "object", false: "value"}[tok == json.Delim('{')]
		if tok == json.Delim('{') && skipRest(dec, 1) != nil {
			return resultValue, nil, false
		}
		return resultValue, &json.UnmarshalTypeError{Value: what, Type: sv.Type()}, true
	}
	if sv.IsNil() {
		sv.Set(reflect.MakeSlice(sv.Type(), 0, 0)) // [] is an empty slice, not nil, as in encoding/json
	}
	sv.SetLen(0)
	et := sv.Type().Elem()
	var first error
	for dec.More() {
		ep := reflect.New(et)
		at := dec.InputOffset()
		if err := dec.Decode(ep.Interface()); err != nil {
			// A read failure repeats without consuming anything: stop, or loop forever.
			if broken(err) || dec.InputOffset() == at {
				return resultValue, nil, false
			}
			first = cmpErr(first, err)
		}
		sv.Set(reflect.Append(sv, ep.Elem()))
	}
	if _, err := dec.Token(); err != nil { // ']'
		return resultValue, nil, false
	}
	return resultValue, first, true
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// broken reports a JSON error after which the decoder cannot go on (bad syntax, the body
// ended); other errors are values that did not fit, and the JSON after them is still read.
func broken(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// nullCheck decodes a value into out and records whether it was JSON null (out is then
// left untouched).
type nullCheck struct {
	out  any
	null bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *nullCheck) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.null = true
		return nil
	}
	return json.Unmarshal(b, n.out)
}

// skipValue reads past one JSON value token by token (never buffering more than one
// token), and reports whether it was null.
func skipValue(dec *json.Decoder) (null bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return false, skipRest(dec, 1)
	}
	return tok == nil, nil
}

// skipRest reads on until depth open objects and arrays are closed.
func skipRest(dec *json.Decoder, depth int) error {
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// skipSpace reads past leading white space (as bytes.TrimSpace sees it) and reports whether
// anything follows.
func skipSpace(br *bufio.Reader) bool {
	for {
		r, _, err := br.ReadRune()
		if err != nil {
			return false
		}
		if !unicode.IsSpace(r) {
			return br.UnreadRune() == nil
		}
	}
}

// onlySpace reports whether the rest of br is white space.
func onlySpace(br *bufio.Reader) bool {
	return !skipSpace(br)
}
