package rubylike

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// toy is a small language on the shared code, so that its tests need no reader: names and
// labels, "..." strings with #{...}, :symbols, @variables, def ... do ... end, "+" and "<>"
// joining strings, calls with and without parentheses.
var toy = NewSyntax(Syntax{
	Lang:   "toy",
	Tokens: func(l *Lexer) Tokenizer { return toyLexer{l} },
	Keyword: func(b []byte) bool {
		return oneOf(b, []string{"def", "do", "end", "nil", "self", "when"})
	},
	Starts:    "\"@:",
	Self:      "self",
	Values:    []string{"nil"},
	Ops:       map[byte]string{OpPair: "=>", OpShl: "<<", OpConcat: "<>", OpPipe: "|>", OpScope: "::", OpOther: "...", OpAssign: "**="},
	GoOn:      []string{"when"},
	Leading:   "|>",
	Concat:    []byte{'+', OpConcat},
	StrConcat: []byte{OpShl},
	Adjacent:  true,
	ArgWords:  []string{"nil"},
	ArgOps:    []byte{'['},
	NotKeys:   []string{"do"},
	Folds:     []string{"join"},
	Ends:      []byte{FrameBlock, 'f'},
})

type toyLexer struct{ *Lexer }

func (l toyLexer) Name() {
	a := l.I
	j := l.IdentEnd(a)
	k := Ident
	if l.Src[a] >= 'A' && l.Src[a] <= 'Z' {
		k = Const
	}
	if j < len(l.Src) && l.Src[j] == ':' && l.Peek(j-a+1) == ' ' {
		k = Label
	}
	if k == Label {
		l.Emit(Token{Kind: k, S: int32(a), A: int32(a), B: int32(j)})
		l.I = j + 1
		return
	}
	l.EmitName(k, a, j)
}

func (l toyLexer) Token(c, next byte) {
	switch {
	case c == '"':
		s, p0 := l.I, len(l.Parts)
		l.I++
		l.Interp('"', 0, len(l.Src))
		k := Str
		if l.Peek(0) == ':' && l.Peek(1) == ' ' {
			k = Label // "name": value
			l.I++
		}
		l.EmitStr(k, s, l.I, p0)
	case c == '@' || c == ':' && next >= 'a' && next <= 'z':
		k := Var
		if c == ':' {
			k = Sym
		}
		j := l.IdentEnd(l.I + 1)
		l.Emit(Token{Kind: k, S: int32(l.I), A: int32(l.I + 1), B: int32(j)})
		l.I = j
	default:
		l.Operator()
	}
}

type toyParser struct{ Parser }

func (p *toyParser) Name(i int) {
	switch string(p.Bytes(i)) {
	case "nil", "self", "when":
		return
	case "def":
		if p.Toks[min(i+1, len(p.Toks)-1)].Kind == Ident {
			p.Out.Decl(p.Text(i + 1))
		}
		p.Head = true
		return
	case "do":
		p.EndCommands(i)
		if p.Head {
			p.Head = false
			p.Scope('f', i)
		} else {
			p.Fr.PushBlock(FrameBlock, i)
		}
		return
	case "end":
		p.End(i)
		return
	}
	p.Concatenation(i)
	if !p.Is(i+1, '(') && p.Command(i) {
		p.Call(i, FrameCall, i)
	}
}

func (p *toyParser) Variable(i int) { p.Concatenation(i) }

func (p *toyParser) Brace(i int) { p.Fr.PushLiteral('{', i) }

func (p *toyParser) Declared(i int) bool           { return p.Word(i-1, "def") }
func (p *toyParser) Target(i int) (string, bool)   { return p.Assigned(i) }
func (p *toyParser) Tail(_, end int) int           { return end }
func (p *toyParser) Finish(lexkit.Frame, int, int) {}

func readToy(src []byte) *code.File {
	p := &toyParser{}
	return Read(src, toy, &p.Parser, p)
}

// TestParser checks the calls, values, keys and variables the shared parser makes of a
// language that tells it nothing but its Syntax and a few keywords.
func TestParser(t *testing.T) {
	readertest.Table(t, readToy, "toy", []readertest.Named{
		{Name: "calls with and without parentheses", Src: "client.get(\"zones/#{id}\", page: 1)\nput \"x\", :a => y\n" +
			"api(opts).rules.post x, \"y\"\n",
			Want: []string{
				`str 1:12 "zones/\x00" call=0 arg=0 holes=id`,
				`str 2:5 "x" call=1 arg=0`,
				`str 3:25 "y" call=3 arg=1`,
				`call 1:8 client.get args=, keys=page@0`,
				`call 2:1 put args=, keys=a@0`,
				`call 3:1 api args=opts`,
				`call 3:17 api.rules.post args=x,`},
			Spans: []string{
				`call client.get 1:8-1:34 keys=page@1:27`,
				`call put 2:1-2:16 keys=a@2:10`,
				`call api 3:1-3:9`,
				`call api.rules.post 3:17-3:27`,
				`str "zones/\x00" 1:12-1:24`,
				`str "x" 2:5-2:7`,
				`str "y" 3:25-3:27`}},
		{Name: "concatenations and variables", Src: "base = \"/zones/\" + zone\nurl = base <> \"/rules\" \"/x\"\n" +
			"get url + \"?\" + @q, method: :post\ns = \"a\" << b\n",
			Want: []string{
				`str 1:8 "/zones/\x00" as=base holes=zone`,
				`str 2:7 "/zones/\x00/rules/x" as=url holes=zone`,
				`str 3:5 "/zones/\x00/rules/x?\x00" call=0 arg=0 holes=zone,q`,
				`str 3:29 "post" key=method call=0 arg=1`,
				`str 4:5 "a\x00" as=s holes=b`,
				`call 3:1 get args=, keys=method@0`}},
		{Name: "scopes and blocks", Src: "X = \"x\"\ndef f do\n  v = \"a\"\n  get \"#{X}/#{v}\"\nend\n" +
			"each do\n  get v + \"b\"\nend\nself.run(self, nil)\n",
			Want: []string{
				`decl f`,
				`str 1:5 "x" as=X`,
				`str 3:7 "a" as=v`,
				`str 4:7 "x/a" call=0 arg=0`,
				`str 7:7 "\x00b" call=1 arg=0 holes=v`,
				`call 4:3 get`,
				`call 7:3 get`,
				`call 9:6 self.run args=,`}},
		{Name: "lines that go on", Src: "get \"a\",\n  \"b\" when\n  x\nfoo\n  |> bar\nbaz\n  .qux(1)\n" +
			"y = 1 **= 2 ... 3 :: 4 # a comment\n",
			Want: []string{
				`str 1:5 "a" call=0 arg=0`,
				`str 2:3 "b" call=0 arg=1`,
				`call 1:1 get args=,`,
				`call 7:4 baz.qux`},
			Spans: []string{
				`call get 1:1-3:3`,     // a line ending with ",", an operator or a word of GoOn goes on
				`call baz.qux 7:4-7:9`, // a line starting with "." goes on the one before
				`str "a" 1:5-1:7`,
				`str "b" 2:3-2:5`}},
		{Name: "keys", Src: "post(url, {do: 1, \"a\": 2, b: [\"c\", \"d\"]})\n",
			Want: []string{
				`str 1:31 "c" key=b call=0`,
				`str 1:36 "d" key=b call=0`,
				`call 1:1 post args=url, keys=a@0,b@0`}},
		{Name: "stray closers and an unterminated interpolation", Src: "end end ) ] } get \"x\"\nput \"#{",
			Want: []string{`str 1:19 "x" call=0 arg=0`, `call 1:15 get`, `call 2:1 put`}},
		{Name: "unterminated", Src: "def f do\n  get(\"a\"\n", Want: []string{`decl f`, `str 2:7 "a" call=0 arg=0`, `call 2:3 get`}},
	})
}

// TestLexer checks the tokens of the shared lexer: operators of three, two and one bytes,
// brackets paired, numbers, blank space, comments, newlines that end a statement and those
// that do not (after an operator: "|" then ">" on the next line are two).
func TestLexer(t *testing.T) {
	src := []byte("a **= (b...c) [1.5e3, 0x1F]\n\n# c\nd <>\n e |\n> f\n")
	l := newLexer(src, lexkit.NewOut("toy", src), toy)
	l.run(toyLexer{l})
	var got []string
	for k, tok := range l.Toks {
		s := string(src[tok.A:tok.B])
		switch {
		case tok.Kind == NL:
			s = "NL"
		case tok.Kind == Op && tok.Op >= 0x80:
			s = "op:" + s
		}
		if tok.Match >= 0 {
			s += "~" + string(src[l.Toks[tok.Match].A])
		}
		if k > 0 && tok.Sp {
			s = "_" + s
		}
		got = append(got, s)
	}
	want := "a _op:**= _(~) b op:... c )~( _[~] 1.5e3 , _0x1F ]~[ NL d _op:<> _e _| > _f NL"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	l.release()
}

// TestResume checks that a newline goes on where Lexer.Resume says (past a heredoc's body
// read already), once.
func TestResume(t *testing.T) {
	src := []byte("a\nbody\nb\nc\n")
	l := newLexer(src, lexkit.NewOut("toy", src), toy)
	l.Resume = 7 // "body\n" read already
	l.run(toyLexer{l})
	var got []string
	for _, tok := range l.Toks {
		got = append(got, string(src[tok.A:tok.B]))
	}
	if strings.Join(got, "|") != "a|\n|b|\n|c|\n" || l.Resume != -1 {
		t.Errorf("got %q, Resume %d", got, l.Resume)
	}
}

// TestDedent checks that a heredoc's indentation is taken from the start of each line of
// literal text, not after a hole, and no further than indent.
func TestDedent(t *testing.T) {
	src := []byte("    a\n      b #{x}  c\n  d\n")
	l := newLexer(src, lexkit.NewOut("toy", src), toy)
	l.Interp(0, 0, len(src))
	l.Dedent(0, 4)
	var f lexkit.Fold
	f.Parts(l.Parts, src, nil)
	if got := f.Value(); got != "a\n  b \x00  c\nd\n" {
		t.Errorf("got %q", got)
	}
}

// TestCloser checks the delimiters that close a literal, and which nest.
func TestCloser(t *testing.T) {
	for open, want := range map[byte]string{'(': ")n", '[': "]n", '{': "}n", '<': ">n", '|': "|", '"': "\""} {
		c, nests := Closer(open)
		got := string(c)
		if nests {
			got += "n"
		}
		if got != want {
			t.Errorf("Closer(%q) = %q, want %q", open, got, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add("def f do\n get(\"a#{b}\" + c, d: :e) end ) ] }")
	f.Fuzz(readertest.Fuzz(readToy))
}
