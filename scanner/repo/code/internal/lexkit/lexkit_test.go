package lexkit

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

func TestLines(t *testing.T) {
	src := []byte("ab\nçé x\n\nlast")
	l := NewLines(src)
	for _, c := range []struct {
		off  int
		want code.Pos
	}{
		{0, code.Pos{Line: 1, Col: 1}}, {2, code.Pos{Line: 1, Col: 3}}, {3, code.Pos{Line: 2, Col: 1}},
		{7, code.Pos{Line: 2, Col: 3}}, {8, code.Pos{Line: 2, Col: 4}}, {1, code.Pos{Line: 1, Col: 2}},
		{10, code.Pos{Line: 3, Col: 1}}, {9, code.Pos{Line: 2, Col: 5}}, {14, code.Pos{Line: 4, Col: 4}},
		{5, code.Pos{Line: 2, Col: 2}}, {99, code.Pos{Line: 4, Col: 5}}, {-1, code.Pos{Line: 1, Col: 1}},
	} {
		if got := l.Pos(c.off); got != c.want {
			t.Errorf("Pos(%d) = %v, want %v", c.off, got, c.want)
		}
	}
}

func TestFold(t *testing.T) {
	var f Fold
	f.Hole("")
	f.Hole("zone")
	f.Lit("/x\x00")
	f.Hole("id")
	f.Append("a\x00b\x00", []string{"k"})
	if f.Value() != "\x00/x\x00a\x00b\x00" || strings.Join(f.Names(), ",") != "zone,id,k," || !f.Literal() {
		t.Errorf("got %q %q", f.Value(), f.Names())
	}
	f.Reset()
	f.Hole("a")
	if f.Literal() || f.Value() != "\x00" || len(f.Names()) != 1 {
		t.Errorf("after Reset: %q %q", f.Value(), f.Names())
	}
}

func TestPrintf(t *testing.T) {
	for _, c := range []struct {
		format string
		names  []string
		args   []string
		want   string
		holes  string
	}{
		{"zones/%s/rules/%d", nil, []string{"zone", ""}, "zones/\x00/rules/\x00", "zone,"},
		{"%1$s/%2$s/%1$s", nil, []string{"a", "b"}, "\x00/\x00/\x00", "a,b,a"},
		{"%[2]v and %v", nil, []string{"a", "b", "c"}, "\x00 and \x00", "b,c"},
		{"100%% %-05.2f %'*10s", nil, nil, "100% \x00 \x00", ","},
		{"%<zone>s/%{id}/%<n>05.1f", nil, nil, "\x00/\x00/\x00", "zone,id,n"},
		{"\x00/%s", []string{"base"}, []string{"z"}, "\x00/\x00", "base,z"},
		{"50% off: 100%", nil, nil, "50\x00ff: 100%", ""},
		{"%2F%s", nil, []string{"x"}, "\x00", "x"},
	} {
		var f Fold
		Printf(&f, c.format, c.names, c.args)
		if f.Value() != c.want || strings.Join(f.Names(), ",") != c.holes {
			t.Errorf("Printf(%q) = %q %q, want %q %q", c.format, f.Value(), f.Names(), c.want, c.holes)
		}
	}
}

func TestLastName(t *testing.T) {
	for expr, want := range map[string]string{
		"zone_id": "zone_id", " $zoneId ": "zoneId", "$this->zoneId": "zoneId", "self.zone.id": "id",
		"@zone_id": "zone_id", "params['zone_id']": "zone_id", `opts[:zone_id]`: "zone_id",
		"$arr[0]": "arr", "$arr[$i]": "arr", "a?->b": "b", "Foo::BAR": "BAR", "a&.b": "b",
		"f()": "", "a + b": "", "a-b": "", "1x": "", "": "", "x[": "", "$": "", "a.": "", "a..b": "b",
	} {
		if got := string(LastName([]byte(expr))); got != want {
			t.Errorf("LastName(%q) = %q, want %q", expr, got, want)
		}
	}
}

func TestVars(t *testing.T) {
	var v Vars
	v.Set("base", "/zones/", nil, true)
	v.Set("twice", "a", nil, true)
	v.Set("twice", "b", nil, true)
	v.Push()
	v.Set("local", "x\x00", []string{"id"}, true)
	if val, names, ok := v.Get("local", false); !ok || val != "x\x00" || names[0] != "id" {
		t.Errorf("local: %q %v", val, ok)
	}
	if _, _, ok := v.Get("base", false); ok {
		t.Error("base seen from a function scope without outer")
	}
	if val, _, ok := v.Get("base", true); !ok || val != "/zones/" {
		t.Errorf("base with outer: %q %v", val, ok)
	}
	v.Pop()
	v.Pop()
	if _, _, ok := v.Get("twice", false); ok {
		t.Error("a variable assigned twice is known")
	}
	if _, _, ok := v.Get("local", true); ok {
		t.Error("a closed scope's variable is known")
	}
}

func TestNest(t *testing.T) {
	var n Nest
	n.Open(0, '(')
	n.Open(1, '[')
	if got := n.Close('('); got != 0 { // ( [ ) closes the ( and leaves [ unmatched
		t.Errorf("Close = %d", got)
	}
	if got := n.Close('['); got != -1 {
		t.Errorf("Close after skip = %d", got)
	}
	for i := 0; i < 20; i++ {
		n.Open(i, '{')
	}
	n.Open(20, '(')
	for i := 0; i < maxSkip; i++ {
		n.Open(21+i, '[')
	}
	if got := n.Close('('); got != -1 {
		t.Errorf("Close beyond maxSkip = %d", got)
	}
}

func TestJoinPiece(t *testing.T) {
	var f Fold
	f.JoinPiece("zones/", nil)
	f.JoinPiece("\x00", []string{"zone"})
	f.JoinPiece("/settings/", nil)
	f.JoinPiece("/waf", nil)
	if f.Value() != "zones/\x00/settings/waf" || strings.Join(f.Names(), ",") != "zone" {
		t.Errorf("got %q %q", f.Value(), f.Names())
	}
}

// TestOut checks that values are kept in source order, that dropped values are left out,
// and that a call gets the argument identifiers and keys staged for it, nested calls or not.
func TestOut(t *testing.T) {
	src := []byte("a(b(x), y: \"v\")\nlast")
	o := NewOut("test", src)
	var f Fold
	outer := o.AddCall([]string{"a"}, false, 0)
	inner := o.AddCall([]string{"b"}, false, 2)
	f.Lit("x")
	o.AddStr(&f, 4, 5, Ctx{Call: inner, Arg: 0})
	o.AddArgIdent(inner, "x")
	o.EndCall(inner, 6)
	o.AddArgIdent(outer, "")
	o.AddKey(outer, "y", 8, 0)
	f.Reset()
	f.Lit("v")
	o.AddStr(&f, 11, 14, Ctx{Call: outer, Arg: 1, Key: "y"})
	f.Reset()
	f.Lit("first")
	if k := o.AddStr(&f, 0, 1, NoCall); k != 0 {
		t.Errorf("a value starting first went to %d", k)
	}
	f.Reset()
	f.Lit("gone")
	o.DropStr(o.AddStr(&f, 16, 20, NoCall))
	o.AddArgIdent(outer, "")
	file := o.Done() // outer never ended
	got := strings.Join(Describe(file), "|")
	want := `str 1:1 "first"|str 1:5 "x" call=1 arg=0|str 1:12 "v" key=y call=0 arg=1|` +
		`call 1:1 a args=, keys=y@0|call 1:3 b args=x`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := Check(src, file); err != nil {
		t.Error(err)
	}
}
