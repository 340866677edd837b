package fix

import "bytes"

// A file comes back as it was: its byte order mark and its line ends are the file's own.
// The parser refuses a UTF-8 byte order mark and fix writes "\n", so a file is decoded
// before it is read (the mark taken off, CRLF made LF when every line ends so) and what fix
// writes is encoded back the same way. A file whose lines end both ways is read as it is:
// the lines fix writes end with LF there, as the file's other LF lines do.

// bom is the UTF-8 byte order mark.
var bom = []byte("\xef\xbb\xbf")

// encoding is how a file's bytes differ from the text fix edits.
type encoding struct {
	bom  bool // the file starts with a UTF-8 byte order mark
	crlf bool // every line of the file ends with CRLF
}

// decode is raw as fix reads it, and how to encode it back.
func decode(raw []byte) ([]byte, encoding) {
	var enc encoding
	src := raw
	if bytes.HasPrefix(src, bom) {
		enc.bom, src = true, src[len(bom):]
	}
	crlf := bytes.Count(src, []byte("\r\n"))
	if crlf > 0 && crlf == bytes.Count(src, []byte("\n")) {
		enc.crlf, src = true, bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	}
	return src, enc
}

// encode is text (decoded as the file was) as the file's bytes: decode(encode(x)) is x.
func (e encoding) encode(text []byte) []byte {
	out := text
	if e.crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if e.bom {
		out = append(append([]byte(nil), bom...), out...)
	}
	return out
}

// raw is the file's bytes as read.
func (f *File) raw() []byte { return f.enc.encode(f.Src) }
