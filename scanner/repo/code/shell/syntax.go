package shell

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// literal returns the word just read when it has no expansion, "" otherwise.
func (r *reader) literal(w *word) string {
	if w.holes {
		return ""
	}
	return r.out.Intern(r.fold().Bytes())
}

// is reports whether the word just read is the literal w.
func (r *reader) is(w *word, s string) bool {
	return !w.holes && string(r.fold().Bytes()) == s
}

// blanks skips spaces, tabs and line continuations.
func (r *reader) blanks() {
	for r.i < len(r.src) {
		switch {
		case r.src[r.i] == ' ' || r.src[r.i] == '\t' || r.src[r.i] == '\r':
			r.i++
		case r.src[r.i] == '\\' && r.peek(1) == '\n':
			r.i += 2
		default:
			return
		}
	}
}

// source reads the file of "source x" or ". x" (its literal text, expansions left out).
func (r *reader) source() {
	r.blanks()
	r.word(0)
	if r.fold().Literal() {
		r.out.Import(string(bytes.ReplaceAll(r.fold().Bytes(), []byte(code.HoleString), nil)))
	}
}

// declares reads the "()" of a function declaration "name() {" after its name, and
// reports whether it was there.
func (r *reader) declares(w *word) bool {
	j := r.i
	for j < len(r.src) && (r.src[j] == ' ' || r.src[j] == '\t') {
		j++
	}
	if j >= len(r.src) || r.src[j] != '(' {
		return false
	}
	j++
	for j < len(r.src) && (r.src[j] == ' ' || r.src[j] == '\t') {
		j++
	}
	if j >= len(r.src) || r.src[j] != ')' {
		return false
	}
	r.out.Decl(r.literal(w))
	r.i = j + 1
	return true
}

// function reads "function name" and an optional "()".
func (r *reader) function(c *cmd) {
	r.blanks()
	w := r.word(0)
	if name := r.literal(&w); name != "" && !r.declares(&w) {
		r.out.Decl(name)
	}
	c.mode = modeNone // its body's "{" comes next
}

// redirect reads a redirection: its target is no value, except a here-string's (a value
// given to the command) and a heredoc's delimiter (its body is read after the line).
func (r *reader) redirect(c *cmd) {
	for r.i < len(r.src) && r.src[r.i] >= '0' && r.src[r.i] <= '9' {
		r.i++
	}
	op := r.i
	for r.i < len(r.src) && r.i-op < 3 && (r.src[r.i] == '<' || r.src[r.i] == '>' || r.src[r.i] == '&' ||
		r.src[r.i] == '|' || r.src[r.i] == '-' && r.i > op && r.src[r.i-1] == '<') {
		r.i++
	}
	kind := string(r.src[op:r.i])
	r.blanks()
	if r.i >= len(r.src) || isMeta(r.src[r.i]) {
		return
	}
	w := r.word(0)
	c.end = w.end
	switch kind {
	case "<<", "<<-":
		r.pending = append(r.pending, heredoc{delim: string(r.fold().Bytes()), quoted: w.quoted, dash: kind == "<<-", call: -2})
	case "<<<":
		call := c.call
		r.out.AddStr(r.fold(), w.start, w.end, lexkit.Ctx{Call: call, Arg: -1})
	}
}

// bodies reads the bodies of the heredocs announced on the line just ended, one value a
// line, from r.i.
func (r *reader) bodies() {
	for k := 0; k < len(r.pending); k++ {
		h := r.pending[k]
		call := max(h.call, -1)
		for r.i < len(r.src) {
			end := bytes.IndexByte(r.src[r.i:], '\n')
			if end < 0 {
				end = len(r.src)
			} else {
				end += r.i
			}
			next := end + 1
			start := r.i
			for h.dash && start < end && r.src[start] == '\t' {
				start++
			}
			lineEnd := end
			if lineEnd > start && r.src[lineEnd-1] == '\r' {
				lineEnd--
			}
			if string(r.src[start:lineEnd]) == h.delim {
				r.i = min(next, len(r.src))
				break
			}
			f := r.fold()
			f.Reset()
			r.i = start
			if h.quoted {
				f.LitBytes(r.src[start:lineEnd])
			} else {
				var w word
				r.double(f, &w, 0, lineEnd)
			}
			r.out.AddStr(f, start, lineEnd, lexkit.Ctx{Call: call, Arg: -1})
			r.i = min(max(next, r.i), len(r.src))
		}
	}
	r.pending = r.pending[:0]
}
