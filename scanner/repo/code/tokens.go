package code

// byteClass sorts bytes for TokenHint: blank space, word bytes (letters, digits, _, and
// every byte of a UTF-8 sequence), and the rest, each of which may start a token.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			t[c] = classBlank
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			t[c] = classWord
		default:
			t[c] = classOther // punctuation, quotes, line breaks
		}
	}
	return t
}()

const (
	classBlank = iota
	classWord
	classOther
)

// TokenEstimate returns about how many tokens a lexer makes of src, and seldom fewer: it counts
// the bytes that may start one (every punctuation byte and line break, the first of every
// run of word bytes), so inside strings and comments it counts more. A lexer makes room for
// that many tokens at once (lexkit.Room): grown by append instead, a token slice is copied at every step
// and a 20 MB minified file briefly holds two of its largest.
func TokenEstimate(src []byte) int {
	n, word := 16, false
	for _, c := range src {
		switch byteClass[c] {
		case classWord:
			if !word {
				n++
			}
			word = true
			continue
		case classOther:
			n++
		}
		word = false
	}
	return n
}
