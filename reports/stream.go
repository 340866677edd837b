package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// streamMarker stands in a document for the array written element by element. It is found
// as the value of its key at the start of a line, where only the encoder writes: text from
// a user is always inside a string, whose newlines are escaped.
var streamMarker = json.RawMessage(`"\u0000sunset:streamed-array"`)

// streamBufSize is the write buffer of the streamed formats.
const streamBufSize = 64 << 10

// newJSONEncoder is the encoder of every JSON format: no HTML escaping (expressions such as
// `a && b` read as written), indented by two spaces after prefix.
func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// writeJSONStream writes doc as newJSONEncoder(w, "").Encode would, except that the value
// of key, which doc holds as streamMarker, is an array of n elements written one at a
// time: the bytes are those of encoding the whole document, but memory holds one element,
// not the document. An empty key means doc is itself the marker (a top-level array).
func writeJSONStream(w io.Writer, doc any, key string, n int, elem func(i int) any) error {
	var head bytes.Buffer
	if err := newJSONEncoder(&head, "").Encode(doc); err != nil {
		return err
	}
	at, indent, err := findStreamMarker(head.Bytes(), key)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, streamBufSize)
	bw.Write(head.Bytes()[:at])
	if err := writeJSONArray(bw, indent, n, elem); err != nil {
		return err
	}
	bw.Write(head.Bytes()[at+len(streamMarker):])
	return bw.Flush()
}

// findStreamMarker returns the offset of the marker that is the value of key and the
// indentation of its line.
func findStreamMarker(doc []byte, key string) (int, string, error) {
	want := streamMarker
	if key != "" {
		want = append([]byte(`"`+key+`": `), streamMarker...)
	}
	for from := 0; ; {
		i := bytes.Index(doc[from:], want)
		if i < 0 {
			return 0, "", errors.New("streamed array not found in its document")
		}
		i += from
		line := bytes.LastIndexByte(doc[:i], '\n') + 1
		if len(bytes.TrimLeft(doc[line:i], " ")) == 0 {
			return i + len(want) - len(streamMarker), string(doc[line:i]), nil
		}
		from = i + 1
	}
}

// writeJSONArray writes an array of n elements whose line is indented by indent, as the
// encoder would inside a document: "[]" when empty.
func writeJSONArray(bw *bufio.Writer, indent string, n int, elem func(i int) any) error {
	if n == 0 {
		bw.WriteString("[]")
		return nil
	}
	var buf bytes.Buffer
	enc := newJSONEncoder(&buf, indent+"  ")
	bw.WriteString("[\n")
	for i := range n {
		buf.Reset()
		if err := enc.Encode(elem(i)); err != nil {
			return err
		}
		bw.WriteString(indent + "  ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if i < n-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString(indent + "]")
	return nil
}
