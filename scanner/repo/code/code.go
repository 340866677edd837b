// Package code is the language-neutral shape `sunset check` reads program source as: the
// string values a file builds (literal pieces folded across concatenation, interpolation,
// format calls and path joins, with holes where the source does not say the value), the calls
// it makes (the dotted name as written and which strings are its arguments), what it imports
// or declares itself to be, and the functions it defines. One subpackage per language turns a
// file into a File (code/golang on go/parser, the others on a small tokenizer each); the
// matchers in scanner/repo work on File alone, never on one language.
package code

import (
	"slices"
	"strings"
)

// Hole stands, inside Str.Value, for a part of a string whose value the source does not
// write out: a variable, a call, an interpolation, a format verb. A path segment holding a
// hole can only stand for a route parameter, never for a literal segment.
const Hole = '\x00'

// HoleString is Hole as a string, for building values.
const HoleString = "\x00"

// Pos is a position in a file: 1-based line, and 1-based column counted in characters.
type Pos struct{ Line, Col int }

// Str is one string value the code builds: a literal, or literals folded with what they are
// joined to. Value holds the literal text with Hole for each unknown part ("zones/" + id +
// "/filters" is "zones/\x00/filters"); consecutive holes are kept as one.
type Str struct {
	Value string
	// Pos is where the value starts in the source (its first literal piece or hole), End
	// where it ends.
	Pos, End Pos
	// Key names what the value is given to, when the source says: a keyword argument or
	// object key ("endpoint", "url", "method", "expression"), or a named argument. "" when
	// none. A value assigned to a variable carries the variable in Assigned instead.
	Key string
	// Assigned is the variable or constant the value is assigned to ("url = base + ..."),
	// "" otherwise.
	Assigned string
	// Call is the index in File.Calls of the call this value is an argument of (directly,
	// or as a member of an object or keyword argument passed to it), -1 when none.
	Call int
	// Arg is the value's argument position in that call (0-based), -1 when Call is -1 or the
	// value sits inside an object argument.
	Arg int
	// HoleNames are the names the source gives the holes, where it does (the variable of an
	// interpolation, "zone_id" in f"/zones/{zone_id}"), in order; "" for a hole that is an
	// expression. Matchers read them as evidence ("zone", "account").
	HoleNames []string
	// Comment is true for text the code does not use: read from a comment (only languages
	// whose comments are structured, such as a Go doc directive, ever set it; tokenizers
	// skip comments) or a string standing alone as a statement (a Python docstring).
	// Matchers take it for documentation, not usage.
	Comment bool
}

// Call is one call the code makes.
type Call struct {
	// Callee is the called name as a dotted chain, as written, without call parentheses in
	// between: cf.zones.firewall.rules.get(...) is [cf zones firewall rules get];
	// $this->client->get(...) is [this client get]; api.FirewallRules(...) is
	// [api FirewallRules]; client(opts).put(...) is [client put]; a shell command line is
	// its command word ([curl]).
	Callee []string
	// New is true for a constructor call (new X(...), X.new(...) in Ruby is written as a
	// call of "new" instead).
	New bool
	// Pos is where the call's name starts (the last element of Callee), End the closing
	// parenthesis or the end of the command line.
	Pos, End Pos
	// ArgIdents are the plain identifiers passed as arguments, in order ("" for an argument
	// that is not a plain identifier), so a matcher can link a call to a value assigned to
	// a variable earlier (url = "..."; requests.post(url)) or see a zone id passed along.
	ArgIdents []string
	// Keys are the keyword-argument or object-member names passed to the call, in order, with
	// their positions (a Pulumi resource's settings, a client's method: 'POST').
	Keys []Key
}

// Key is a keyword argument or object member name with its position.
type Key struct {
	Name string
	Pos  Pos
	// Depth is 0 for a keyword argument or a member of an object passed directly, 1 for a
	// member of an object nested one level inside, and so on.
	Depth int
}

// Name returns the last element of the callee (the method or function name), or "".
func (c Call) Name() string {
	if len(c.Callee) == 0 {
		return ""
	}
	return c.Callee[len(c.Callee)-1]
}

// File is what a language reader made of one source file.
type File struct {
	// Lang is the reader's language name ("go", "python", "javascript", ...).
	Lang string
	// Imports are the modules the file imports, requires or uses, and the package, module or
	// namespace it declares itself in, as written ("github.com/cloudflare/cloudflare-go",
	// "CloudFlare", "@pulumi/cloudflare", "Plients\\CloudFlare\\API", "Cloudflare.Filter").
	Imports []string
	// Strings are the string values the file builds, in source order. A value that is only
	// holes is left out.
	Strings []Str
	// Calls are the calls the file makes, in source order.
	Calls []Call
	// Decls are the names of the functions and methods the file defines itself, so that a
	// call of a project's own wrapper is not taken for an SDK call of the same name.
	Decls []string
	// Funcs are the same definitions with where their bodies lie and whether they are
	// methods, for readers that know (the Go reader): a call named like a method the file
	// defines is the project's own wrapper, but inside that very method it is the call the
	// wrapper delegates to.
	Funcs []Func
	// Unread, when not empty, says why the reader stopped following the file's structure
	// somewhere (nesting past its bound), UnreadAt where: what lies there was not read, so a
	// check counts the file as not fully read rather than passing over it in silence.
	Unread   string
	UnreadAt Pos
}

// Stop records that the reader stopped following the file at pos, for why; the first place
// is kept.
func (f *File) Stop(pos Pos, why string) {
	if f.Unread == "" {
		f.Unread, f.UnreadAt = why, pos
	}
}

// Func is a function or method the file defines.
type Func struct {
	Name string
	// Method is true for a method (it has a receiver, or is defined in a class).
	Method bool
	// Pos and End bound the definition, body included.
	Pos, End Pos
}

// Enclosing returns the innermost function whose definition holds p, or nil.
func (f *File) Enclosing(p Pos) *Func {
	var best *Func
	for i := range f.Funcs {
		fn := &f.Funcs[i]
		if before(p, fn.Pos) || before(fn.End, p) {
			continue
		}
		if best == nil || before(best.Pos, fn.Pos) {
			best = fn
		}
	}
	return best
}

// before reports whether a comes strictly before b.
func before(a, b Pos) bool { return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col) }

// Declares reports whether the file defines a function or method of that name.
func (f *File) Declares(name string) bool { return slices.Contains(f.Decls, name) }

// Fold joins the pieces of a value: literal text is kept, every hole piece (written as
// HoleString) collapses with its neighbouring holes into one. Readers use it to build
// Str.Value.
func Fold(pieces ...string) string {
	var b strings.Builder
	for _, p := range pieces {
		for i := 0; i < len(p); i++ {
			if p[i] == Hole && b.Len() > 0 && b.String()[b.Len()-1] == Hole {
				continue
			}
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// Literal reports whether the value has at least one literal character.
func (s Str) Literal() bool { return strings.Trim(s.Value, HoleString) != "" }
