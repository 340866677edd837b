package shell

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// Modes of a command: what its next words are.
const (
	modeNone    = iota
	modeSkip    // words that are neither command nor arguments ([[ ... ]], a command we cannot name)
	modeFor     // the name and "in" of for/select, then words as modeSkip
	modeDeclare // export, local, readonly, declare: NAME=value words are assignments
	modePrefix  // sudo, env, exec ...: the next word that is no option is the command
	modeCase    // the word after case
	modePattern // a case pattern, up to its ')'
)

// cmd is the simple command being read.
type cmd struct {
	call  int // -1 until the command word is read
	arg   int // the next argument's number
	words int // words read
	mode  int
	end   int // end of the last word read
	// printf is the index (for Out.Str) of a printf format, -1, and fmtArg its argument
	// number; skip counts the words before it still to pass over (printf -v var).
	printf, fmtArg, skip int
}

func (r *reader) begin() cmd {
	c := cmd{call: -1, printf: -1}
	if r.inPattern {
		c.mode = modePattern
	}
	return c
}

// add takes one word of a command.
func (r *reader) add(c *cmd, w *word) {
	c.words++
	c.end = w.end
	switch {
	case c.call >= 0:
		r.arg(c, w)
	case c.mode == modePattern:
		if r.is(w, "esac") {
			r.cases--
			r.inPattern = false
			c.mode = modeNone
		}
	case c.mode == modeFor:
		if r.is(w, "in") || c.words == 2 && !w.holes {
			return // the loop's variable, and "in"
		}
		r.str(w, lexkit.NoCall)
	case c.mode == modeSkip || c.mode == modeCase:
		if !w.holes && (r.is(w, "in") || test(r.fold().Bytes())) {
			return
		}
		r.str(w, lexkit.NoCall)
	case w.assign() && (c.mode == modeNone || c.mode == modeDeclare || c.mode == modePrefix):
		r.assignment(w)
	case c.mode == modeDeclare:
	case c.mode == modePrefix && w.option():
	default:
		r.first(c, w)
	}
}

// first takes the first word of a command that is no assignment: a keyword, a function
// declaration, or the command word.
func (r *reader) first(c *cmd, w *word) {
	var lit []byte
	if !w.holes {
		lit = r.fold().Bytes()
	}
	switch string(lit) {
	case "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "esac", "in":
		return
	case "for", "select":
		c.mode = modeFor
		return
	case "[[", "[", "test":
		c.mode = modeSkip
		return
	case "case":
		r.cases++
		c.mode = modeCase
		r.inPattern = true
		return
	case "function":
		r.function(c)
		return
	case "export", "local", "readonly", "declare", "typeset":
		c.mode = modeDeclare
		return
	case "sudo", "env", "exec", "command", "nohup", "nice":
		c.mode = modePrefix
		return
	case "source", ".":
		r.source()
		return
	}
	name := w.ident
	if len(lit) > 0 {
		if r.declares(w) {
			return
		}
		name = r.out.Intern(lit)
	}
	if name == "" {
		c.mode = modeSkip // a command word the source does not write out
		return
	}
	c.mode = modeNone
	c.call = r.out.AddCall([]string{name}, false, w.start)
}

// arg takes an argument word of the command.
func (r *reader) arg(c *cmd, w *word) {
	r.out.AddArgIdent(c.call, w.ident)
	ctx := lexkit.Ctx{Call: c.call, Arg: c.arg}
	c.arg++
	f := r.fold()
	if w.eq > 0 && f.Literal() {
		ctx.Key = w.key(r.src)
		f.Drop(w.eq + w.eqLen)
		r.out.AddKey(c.call, ctx.Key, w.start, 0)
	}
	k := r.str(w, ctx)
	if c.printf < 0 && r.out.CallName(c.call) == "printf" {
		switch {
		case r.is(w, "-v"):
			c.skip = 1
		case w.dashes > 0:
		case c.skip > 0:
			c.skip--
		case k >= 0:
			c.printf, c.fmtArg = k, ctx.Arg
		}
	}
}

// str records a word as a value.
func (r *reader) str(w *word, ctx lexkit.Ctx) int {
	return r.out.AddStr(r.fold(), w.start, w.end, ctx)
}

// assignment records NAME=value and remembers the value for later uses of $NAME; a value
// in parentheses is an array, each of its words a value assigned to NAME.
func (r *reader) assignment(w *word) {
	name := r.out.Name(w.start, w.start+w.eq)
	f := r.fold()
	f.Drop(w.eq + 1)
	if f.Empty() && r.i < len(r.src) && r.src[r.i] == '(' {
		r.array(name)
		return
	}
	k := r.out.AddStr(f, w.start, w.end, lexkit.Ctx{Assigned: name, Call: -1, Arg: -1})
	if k < 0 {
		r.vars.Set(name, "", nil, false)
		return
	}
	s := r.out.Str(k)
	r.vars.Set(name, s.Value, s.HoleNames, true)
}

// array reads the words of NAME=( ... ).
func (r *reader) array(name string) {
	r.i++
	r.vars.Set(name, "", nil, false)
	for r.i < len(r.src) && r.src[r.i] != ')' {
		switch ch := r.src[r.i]; {
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
			r.i++
		case ch == '\\' && r.peek(1) == '\n':
			r.i += 2
		case ch == '#':
			for r.i < len(r.src) && r.src[r.i] != '\n' {
				r.i++
			}
		default:
			start := r.i
			w := r.word(')')
			if r.i == start { // a byte no word takes (; & | < >)
				r.i++
				continue
			}
			r.out.AddStr(r.fold(), w.start, w.end, lexkit.Ctx{Assigned: name, Call: -1, Arg: -1})
		}
	}
	r.i = min(r.i+1, len(r.src))
}

// end ends the command: its call's End and argument identifiers, printf verbs, and the
// heredocs it announced.
func (r *reader) end(c *cmd) {
	for k := range r.pending {
		if r.pending[k].call == -2 {
			r.pending[k].call = c.call
		}
	}
	if c.call < 0 {
		return
	}
	r.out.EndCall(c.call, c.end)
	if c.printf >= 0 {
		s := r.out.Str(c.printf)
		var args []string
		if ids := r.out.Call(c.call).ArgIdents; len(ids) > c.fmtArg+1 {
			args = ids[c.fmtArg+1:]
		}
		f := r.fold()
		f.Reset()
		lexkit.Printf(f, s.Value, s.HoleNames, args)
		s.Value, s.HoleNames = f.Value(), r.out.Strs(f.Names()...)
		if !f.Literal() {
			r.out.DropStr(c.printf)
		}
	}
	c.call = -1
}

// test reports whether a literal word is an operator of a test ([[ -n x ]], a == b).
func test(lit []byte) bool {
	switch string(lit) {
	case "]]", "]", "==", "=", "!=", "=~", "!", "<", ">":
		return true
	}
	return len(lit) > 1 && lit[0] == '-' && len(lit) <= 3
}
