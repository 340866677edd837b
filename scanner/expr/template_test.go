package expr

import (
	"reflect"
	"testing"
)

func TestIsTemplated(t *testing.T) {
	yes := []string{
		`%[5]s`,
		`http.host eq "%[4]s"`,
		`http.request.full_uri in $redirect_list_%[1]s`,
		`http.host eq "%s"`,
		`x eq %d`,
		`x eq "%v" or y eq "%q"`,
		`ip.src ne ${var.waf_allowed_ip}`,
		`x in {${"${join(" ", var.c)}"}}`,
		`x eq "${ local.host }"`,
		`x eq "%{ if var.a }a%{ endif }"`,
		`x eq "%{~for h in var.hosts}${h} %{endfor}"`,
		`%[1]*d`,
	}
	no := []string{
		`http.request.uri.query contains "%3Cscript"`,
		`raw.http.request.uri contains "..%2F"`,
		`raw.http.request.uri.query contains "?%00"`,
		`http.request.uri contains "%d0%b0"`,
		`regex_replace("/foo/a/path", "^/foo/([^/]*)/(.*)$", "/bar/${2}/${1}") == "/bar/path/a/"`,
		`regex_replace("/b", "^/b$", "/b$$") == "/b$"`,
		`x eq "$${var.escaped}"`,
		`x eq "%%{ if escaped }"`,
		`x eq "100%%s"`,
		`x contains "%{other}"`,
		`x eq "${"`,
		`x eq "%["`,
		`x eq "%[1"`,
		`x eq "%[]s"`,
		`x eq "%"`,
		`x eq "$"`,
		`upper(http.request.uri.query) contains "$_GLOBALS["`,
	}
	for _, s := range yes {
		if !IsTemplated(s) {
			t.Errorf("IsTemplated(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsTemplated(s) {
			t.Errorf("IsTemplated(%q) = true", s)
		}
	}
}

func TestMaskPlaceholders(t *testing.T) {
	cases := []struct{ src, want string }{
		{`http.host eq "%[4]s"`, `http.host eq "_____"`},
		{`ip.src ne ${var.ip} and ssl`, `ip.src ne "_______" and ssl`},
		{`x in {${"${join(" ", var.c)}"}}`, `x in {"______________________"}`},
		{`x eq "${"${a}"}" or y`, `x eq "_________" or y`},
		{`x eq "%{ if var.a }a%{ endif }"`, `x eq "_____________a__________"`},
		{`%[5]s`, `"___"`},
		{`x eq %d`, `x eq ""`},
		{`x eq r#"a "%s" b"# and y eq %s`, `x eq r#"a "__" b"# and y eq ""`},
		{`x eq "a\"%s" and ${var.b}`, `x eq "a\"__" and "______"`},
		// Escapes and look-alikes are the text's own.
		{`x eq "100%%s" and y eq "$${var.z}"`, `x eq "100%%s" and y eq "$${var.z}"`},
		{`x contains "%d0%b0" and y eq "${1}"`, `x contains "%d0%b0" and y eq "${1}"`},
		{`x eq "${unclosed" or ${b`, `x eq "${unclosed" or ${b`},
	}
	for _, tc := range cases {
		got := maskPlaceholders(tc.src)
		if got != tc.want {
			t.Errorf("maskPlaceholders(%q)\n = %q\nwant %q", tc.src, got, tc.want)
		}
		if len(got) != len(tc.src) {
			t.Errorf("maskPlaceholders(%q) changed the length", tc.src)
		}
	}
}

// TestParseTemplated: the tree of a templated expression names the fields on both sides of a
// placeholder, keeps the source's positions, and holds no value the template has not supplied.
func TestParseTemplated(t *testing.T) {
	src := "ip.src ne ${var.allowed_ip} and cf.threat_score gt %d and http.host eq \"%[1]s\""
	e, err := ParseTemplated(src)
	if err != nil {
		t.Fatalf("ParseTemplated: %v", err)
	}
	if e.Src != src {
		t.Errorf("Src = %q", e.Src)
	}
	var names []string
	for _, f := range Fields(e) {
		names = append(names, src[f.Pos:int(f.Pos)+len(f.Name)])
	}
	if want := []string{"ip.src", "cf.threat_score", "http.host"}; !reflect.DeepEqual(names, want) {
		t.Errorf("fields at their source positions = %q, want %q", names, want)
	}
	for _, c := range FieldComparisons(e, "cf.threat_score") {
		if _, ok := CompareInt(c, 0); ok {
			t.Errorf("a placeholder decided %s", Print(c))
		}
	}
	// Without placeholders it is Parse, errors included.
	if _, err := ParseTemplated(`http.host eq`); err == nil {
		t.Error("ParseTemplated accepted an incomplete expression")
	}
	// A placeholder standing for the whole expression leaves a string, which is no filter.
	if _, err := ParseTemplated(`%[5]s`); err == nil {
		t.Error("a placeholder alone parsed as a filter")
	}
}

// FuzzParseTemplated: masking keeps the length, and parsing never panics.
func FuzzParseTemplated(f *testing.F) {
	for _, s := range []string{`http.host eq "%[4]s"`, `x in {${"${join(" ", var.c)}"}}`, `r#"%s`, `"\`, `%`, `${a`, `x eq "%{ if a }"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if m := maskPlaceholders(src); len(m) != len(src) {
			t.Fatalf("maskPlaceholders(%q) = %q: length changed", src, m)
		}
		if e, _ := ParseTemplated(src); e == nil || e.Src != src {
			t.Fatalf("ParseTemplated(%q) lost the source", src)
		}
	})
}
