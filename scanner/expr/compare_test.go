package expr

import (
	"reflect"
	"testing"
)

func TestCompareInt(t *testing.T) {
	cases := []struct {
		src        string
		v          int64
		result, ok bool
	}{
		{"x eq 0", 0, true, true},
		{"x == 3", 0, false, true},
		{"x ne 3", 0, true, true},
		{"x != 0", 0, false, true},
		{"x lt 10", 0, true, true},
		{"x < 0", 0, false, true},
		{"x le 0", 0, true, true},
		{"x gt 10", 0, false, true},
		{"x > -1", 0, true, true},
		{"x ge 0", 0, true, true},
		{"x >= 1", 0, false, true},
		{"x gt 10", 14, true, true},
		{"x eq 0x10", 16, true, true},
		{"x bitwise_and 4", 0, false, true},
		{"x & 4", 6, true, true},
		{"x in {1 2 0}", 0, true, true},
		{"x in {1 2 3}", 0, false, true},
		{"x in {1..5 10..20}", 0, false, true},
		{"x in {-5..5}", 0, true, true},
		{"x in {12..20}", 14, true, true},
		{"x in $list", 0, false, false},
		{`x eq "0"`, 0, false, false},
		{`x contains "0"`, 0, false, false},
		{"x in {192.0.2.1}", 0, false, false},
		{"x in {192.0.2.1..192.0.2.9}", 0, false, false},
	}
	for _, tc := range cases {
		e, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		c, isCmp := e.Root.(*Comparison)
		if !isCmp {
			t.Fatalf("%s: root is %T", tc.src, e.Root)
		}
		result, ok := CompareInt(c, tc.v)
		if result != tc.result || ok != tc.ok {
			t.Errorf("CompareInt(%s, %d) = %v, %v; want %v, %v", tc.src, tc.v, result, ok, tc.result, tc.ok)
		}
	}
}

func TestFieldComparisons(t *testing.T) {
	src := `(cf.threat_score gt 10 and http.host eq "cf.threat_score lt 3") or not cf.threat_score lt 14 or len(cf.threat_score) eq 1 or cf.threat_score_x eq 2`
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range FieldComparisons(e, "cf.threat_score") {
		got = append(got, src[c.Pos():c.End()])
	}
	want := []string{"cf.threat_score gt 10", "cf.threat_score lt 14"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FieldComparisons = %q, want %q", got, want)
	}
}

func TestNames(t *testing.T) {
	e, _ := Parse(`http.host eq "a" and (ip.src in {192.0.2.1} or http.host eq "b") and lower(http.host) eq "x"`)
	if got, want := Names(Fields(e)), []string{"http.host", "ip.src"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names(Fields) = %q, want %q", got, want)
	}
	if got, want := Names(Functions(e)), []string{"lower"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names(Functions) = %q, want %q", got, want)
	}
	if got := Names(nil); got != nil {
		t.Errorf("Names(nil) = %q", got)
	}
}
