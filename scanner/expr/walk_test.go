package expr

import (
	"reflect"
	"strings"
	"testing"
)

const walkSrc = `ip.geoip.country in {"CN"} and not any(lower(http.request.headers.names[*])[*] == "x") or ip.src in $cf.open_proxies && ip.geoip.asnum eq 1 ^^ ip.src in $office`

func TestRefs(t *testing.T) {
	e, err := Parse(walkSrc)
	if err != nil {
		t.Fatal(err)
	}
	fields := Fields(e)
	want := []FieldRef{
		{"ip.geoip.country", 0},
		{"http.request.headers.names", Pos(strings.Index(walkSrc, "http.request"))},
		{"ip.src", Pos(strings.Index(walkSrc, "ip.src"))},
		{"ip.geoip.asnum", Pos(strings.Index(walkSrc, "ip.geoip.asnum"))},
		{"ip.src", Pos(strings.LastIndex(walkSrc, "ip.src"))},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("Fields = %v, want %v", fields, want)
	}
	funcs := Functions(e.Root)
	if len(funcs) != 2 || funcs[0].Name != "any" || funcs[1].Name != "lower" || funcs[1].Pos != Pos(strings.Index(walkSrc, "lower")) {
		t.Errorf("Functions = %v", funcs)
	}
	lists := Lists(e)
	if len(lists) != 2 || lists[0].Name != "cf.open_proxies" || lists[1].Name != "office" || walkSrc[lists[0].Pos] != '$' {
		t.Errorf("Lists = %v", lists)
	}
	var ops []string
	for _, o := range Operators(e) {
		ops = append(ops, o.Op.String())
	}
	if got := strings.Join(ops, ","); got != "in,and,not,eq,or,in,and,eq,xor,in" {
		t.Errorf("Operators = %s", got)
	}
}

func TestRenameAndRewrite(t *testing.T) {
	e, err := Parse(walkSrc)
	if err != nil {
		t.Fatal(err)
	}
	n := RenameFields(e, func(name string) string {
		if rest, ok := strings.CutPrefix(name, "ip.geoip."); ok {
			return "ip.src." + rest
		}
		return name
	})
	if n != 2 {
		t.Errorf("renamed %d, want 2", n)
	}
	want := `ip.src.country in {"CN"} and not any(lower(http.request.headers.names[*])[*] eq "x") or ip.src in $cf.open_proxies and ip.src.asnum eq 1 xor ip.src in $office`
	if got := Print(e); got != want {
		t.Errorf("after rename:\n%s\nwant\n%s", got, want)
	}
	// Rewrite: replace every `x in $office` comparison by false, and wrap
	// lower() calls in upper().
	root := Rewrite(e, func(n Node) Node {
		if c, ok := n.(*Comparison); ok {
			if l, ok := c.Y.(*ListRef); ok && l.Name == "office" {
				return &BoolLit{Value: false}
			}
		}
		if c, ok := n.(*Call); ok && c.Name == "lower" {
			return &Call{Name: "upper", Args: []Node{c}}
		}
		return n
	})
	if root != Node(e) {
		t.Error("Rewrite of an *Expr returns the *Expr")
	}
	want = `ip.src.country in {"CN"} and not any(upper(lower(http.request.headers.names[*]))[*] eq "x") or ip.src in $cf.open_proxies and ip.src.asnum eq 1 xor false`
	if got := Print(e); got != want {
		t.Errorf("after rewrite:\n%s\nwant\n%s", got, want)
	}
	// Replacing the root itself.
	if got := Rewrite(&Field{Name: "a"}, func(Node) Node { return &Field{Name: "b"} }); got.(*Field).Name != "b" {
		t.Error("root replacement")
	}
	if Rewrite(nil, func(n Node) Node { return n }) != nil {
		t.Error("nil")
	}
}

type countingVisitor struct{ enter, leave int }

func (v *countingVisitor) Visit(n Node) Visitor {
	if n == nil {
		v.leave++
		return nil
	}
	v.enter++
	return v
}

func TestWalkAndInspect(t *testing.T) {
	e, _ := Parse(`f(a, {1}) or x in {1..2 3} and not y[0] eq "a"`)
	var v countingVisitor
	Walk(&v, e)
	if v.enter != v.leave || v.enter == 0 {
		t.Errorf("enter %d leave %d", v.enter, v.leave)
	}
	// Returning false skips children.
	count := 0
	Inspect(e.Root, func(n Node) bool {
		if n != nil {
			count++
		}
		_, isBin := n.(*BinaryExpr)
		return isBin
	})
	if count != 5 { // or, f(...), and, x in {...}, not
		t.Errorf("visited %d nodes, want 5", count)
	}
	Walk(&v, nil)
}

func TestEqual(t *testing.T) {
	same := [][2]string{
		{`a == 1 && b`, `a eq 1 and b`},
		{`x eq 0x10`, `x eq 16`},
		{`x eq r"a"`, `x eq "a"`},
		{`ip.src eq 2001:0db8::1`, `ip.src eq 2001:db8::1`},
		{`x in {1..2 "a" 61:62}`, `x in {1..2 "a" 61:62}`},
		{`not a`, `!a`},
		{`any(lower(x[*])[*] eq "a")`, `any(lower(x[*])[*] == "a")`},
		{`x["k"] xor y[0]`, `x["k"] ^^ y[0]`},
	}
	for _, c := range same {
		a, _ := Parse(c[0])
		b, _ := Parse(c[1])
		if !Equal(a, b) {
			t.Errorf("Equal(%q, %q) = false", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`a and b`, `a or b`},
		{`a eq 1`, `a eq 2`},
		{`a eq 1`, `a ne 1`},
		{`f(a)`, `f(a, b)`},
		{`f(a)`, `g(a)`},
		{`x[0]`, `x[1]`},
		{`x in {1}`, `x in {1 2}`},
		{`x in $a`, `x in $b`},
		{`ip.src in {10.0.0.0/8}`, `ip.src in {10.0.0.0/9}`},
		{`x contains 61:62`, `x contains 61:63`},
		{`true`, `false`},
		{`not a`, `a`},
		{`x in {1..2}`, `x in {1..3}`},
		{`x["a"]`, `x["b"]`},
		{`any(x[*])`, `any(y[*])`},
		{`a`, `a eq 1`},
		{`x eq "1"`, `x eq 1`},
	}
	for _, c := range differ {
		a, _ := Parse(c[0])
		b, _ := Parse(c[1])
		if Equal(a, b) {
			t.Errorf("Equal(%q, %q) = true", c[0], c[1])
		}
	}
	if !Equal(nil, nil) || Equal(nil, &Field{}) || !Equal(&BadNode{}, &BadNode{From: 3}) {
		t.Error("nil and bad nodes")
	}
}

func TestPrintEdges(t *testing.T) {
	cases := []struct {
		n    Node
		want string
	}{
		{&BytesLit{Value: []byte{1, 2, 3, 4, 5, 6, 7, 8}}, "01:02-03-04-05-06-07-08"},
		{&Comparison{X: &Field{Name: "x"}, Op: OpMatches, Y: &StringLit{Value: `a\`}}, `x matches r"a\"`},
		{&Comparison{X: &Field{Name: "x"}, Op: OpMatches, Y: &StringLit{Value: `a"#b\"`}}, `x matches r##"a"#b\""##`},
		{&BadNode{}, "<bad>"},
		{nil, "<nil>"},
		{&NotExpr{X: &BinaryExpr{X: &Field{Name: "a"}, Op: OpXor, Y: &Field{Name: "b"}}}, "not (a xor b)"},
		{&BinaryExpr{X: &BinaryExpr{X: &Field{Name: "a"}, Op: OpOr, Y: &Field{Name: "b"}}, Op: OpAnd, Y: &NotExpr{X: &Field{Name: "c"}}}, "(a or b) and not c"},
	}
	for _, c := range cases {
		if got := Print(c.n); got != c.want {
			t.Errorf("Print = %q, want %q", got, c.want)
		}
	}
	// A printed eight-byte string reads back as bytes, not as IPv6.
	e, err := Parse(`x contains ` + Print(cases[0].n))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Root.(*Comparison).Y.(*BytesLit); !ok {
		t.Errorf("eight bytes reparsed as %T", e.Root.(*Comparison).Y)
	}
	// The same in a function argument, where a leading letter would read as
	// a field name without the colon.
	e, err = Parse(`f(` + Print(&BytesLit{Value: []byte{0xaa, 2, 3, 4, 5, 6, 7, 8}}) + `)`)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Root.(*Call).Args[0].(*BytesLit); !ok {
		t.Errorf("eight bytes in an argument reparsed as %T", e.Root.(*Call).Args[0])
	}
	if Quote("a\x00\"\\\u00e9\xff") != `"a\x00\"\\é\xFF"` {
		t.Errorf("Quote = %s", Quote("a\x00\"\\\u00e9\xff"))
	}
}
