// Package shell reads sh, bash and zsh scripts into a code.File on a hand-written scanner.
// Every simple command is a call whose callee is its command word ([curl], [http], [wget];
// the command after sudo, env, exec, command or nohup), and every word with a literal part is
// a value: the words of a command are its arguments (Arg counts the words after the command
// word), a word made of several quoted and unquoted parts is one value, and $VAR, ${VAR...},
// $(...) and backquotes are holes. A variable assigned once (URL="https://...") is put in
// place of its later uses. Heredoc bodies are one value per line. Redirection targets are
// not values. source/. lines are imports; name() { and function name are declarations.
package shell

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Read reads one shell script. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	r := &reader{src: src, out: lexkit.NewOut("shell", src)}
	r.out.Reserve(len(src)/28, len(src)/64) // what dense scripts hold
	r.list(0)
	return r.out.Done()
}

type reader struct {
	src []byte
	i   int
	out *lexkit.Out
	// folds holds one value under construction per nesting of $(...) and backquotes.
	folds []*lexkit.Fold
	depth int
	// subshells counts the ( ... ) being read, to bound the recursion.
	subshells int
	vars      lexkit.Vars
	// pending are heredocs whose bodies start after the current line.
	pending []heredoc
	// cases counts the case statements open; inPattern is true where a case pattern is due.
	cases     int
	inPattern bool
}

// heredoc is a here-document announced on the current line.
type heredoc struct {
	delim        string
	quoted, dash bool
	call         int
}

// fold returns the value builder of the current nesting.
func (r *reader) fold() *lexkit.Fold {
	for len(r.folds) <= r.depth {
		r.folds = append(r.folds, new(lexkit.Fold))
	}
	return r.folds[r.depth]
}

func (r *reader) peek(k int) byte {
	if r.i+k < len(r.src) {
		return r.src[r.i+k]
	}
	return 0
}

// list reads commands up to the end of the file or the stop byte (')' of $(...), '`').
func (r *reader) list(stop byte) {
	c := r.begin()
	for r.i < len(r.src) {
		ch := r.src[r.i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			r.i++
		case ch == '\\' && r.peek(1) == '\n':
			r.i += 2 // a line continued
		case ch == '\n':
			r.end(&c)
			r.i++
			r.bodies()
			c = r.begin()
		case ch == '#':
			for r.i < len(r.src) && r.src[r.i] != '\n' {
				r.i++
			}
		case ch == stop:
			r.end(&c)
			r.i++
			return
		case !r.operator(&c, ch):
			w := r.word(stop)
			r.add(&c, &w)
		}
	}
	r.end(&c)
}

// operator reads a control operator, a redirection or a parenthesis at r.i and reports
// whether there was one.
func (r *reader) operator(c *cmd, ch byte) bool {
	switch {
	case ch == '&' && r.peek(1) == '>', ch == '<' || ch == '>', r.fdRedirect():
		r.redirect(c)
	case ch == ';' || ch == '&' || ch == '|':
		r.end(c)
		n := 1
		if next := r.peek(1); next == ch || ch == ';' && next == '&' || ch == '|' && next == '&' {
			n = 2
		}
		if ch == ';' && n == 2 && r.cases > 0 {
			r.inPattern = true // ;; ends a case branch
		}
		r.i += n
		*c = r.begin()
	case ch == '(':
		r.paren(c)
	case ch == ')':
		r.end(c) // a case pattern's end, or a stray one
		r.i++
		r.inPattern = false
		*c = r.begin()
	default:
		return false
	}
	return true
}

// fdRedirect reports whether digits at r.i are a file descriptor before < or >.
func (r *reader) fdRedirect() bool {
	j := r.i
	for j < len(r.src) && r.src[j] >= '0' && r.src[j] <= '9' {
		j++
	}
	return j > r.i && j < len(r.src) && (r.src[j] == '<' || r.src[j] == '>')
}

// paren reads "(": ((arithmetic)), or a subshell at the start of a command.
func (r *reader) paren(c *cmd) {
	switch {
	case r.peek(1) == '(':
		r.i = skipParens(r.src, r.i)
	case c.words == 0 && r.subshells < 256:
		r.i++
		r.subshells++
		r.list(')')
		r.subshells--
	default:
		r.i++
	}
}

// skipParens returns the offset after the parenthesis closing the one at i.
func skipParens(src []byte, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}
