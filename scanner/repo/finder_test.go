package repo

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

func TestFinderAgreesWithBytesContains(t *testing.T) {
	data := []byte("the transfer-encoding header, 0xcc13 and error_chain at the end: zq")
	for _, lit := range []string{"transfer-encoding", "0xcc1", "error_chain", "zq", "q", "missing", "the", ": zq", "zqx", ""} {
		if got, want := newFinder([]byte(lit)).in(data), bytes.Contains(data, []byte(lit)); got != want {
			t.Errorf("%q: %v, bytes.Contains %v", lit, got, want)
		}
	}
}

func FuzzFinder(f *testing.F) {
	f.Add([]byte("abcxyz"), []byte("xy"))
	f.Fuzz(func(t *testing.T, data, lit []byte) {
		if got, want := newFinder(lit).index(data, 0), bytes.Index(data, lit); got != want {
			t.Fatalf("%q in %q: %v, want %v", lit, data, got, want)
		}
		if len(data) > 2 {
			if got, want := newFinder(lit).index(data, 2), bytes.Index(data[2:], lit); (want < 0 && got != -1) || (want >= 0 && got != want+2) {
				t.Fatalf("%q in %q from 2: %v, want %v", lit, data, got, want)
			}
		}
	})
}

func TestFoldFinderFindsEveryCase(t *testing.T) {
	data := []byte("Transfer-Encoding: chunked, 0XCC13 and DNS Validation Error; zQ")
	for _, lit := range []string{"transfer-encoding", "TRANSFER-encoding", "0xcc1", "dns validation error", "zq", "q", "missing", "chunked,", ""} {
		want := bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(lit)))
		if got := newFoldFinder([]byte(lit)).in(data); got != want {
			t.Errorf("%q: %v, want %v", lit, got, want)
		}
	}
}

func FuzzFoldFinder(f *testing.F) {
	f.Add([]byte("abcXyz"), []byte("xY"))
	f.Fuzz(func(t *testing.T, data, lit []byte) {
		lower := toLower(nil, data)
		if got, want := newFoldFinder(lit).index(data, 0), bytes.Index(lower, toLower(nil, lit)); got != want {
			t.Fatalf("%q in %q: %v, want %v", lit, data, got, want)
		}
	})
}

func TestByteGroupFindsWhatEachFinderFinds(t *testing.T) {
	fs := []finder{newFinder([]byte("zones/")), newFinder([]byte("accounts/")), newFinder([]byte("organizations/")), newFinder([]byte("user/"))}
	data := []byte("GET /zones/z/x accounts/a/user/u zones/zones/ organizations/o/ /user/ x")
	type occ struct{ k, at int }
	var want, got []occ
	for k, f := range fs {
		for off := 0; ; {
			at := f.index(data, off)
			if at < 0 {
				break
			}
			want = append(want, occ{k, at})
			off = at + 1
		}
	}
	groups := groupByByte(fs)
	if len(groups) != 2 {
		t.Errorf("%d groups, want 2 (by z and by /)", len(groups))
	}
	for _, g := range groups {
		g.scan(data, fs, func(k, at int) bool { got = append(got, occ{k, at}); return false })
	}
	less := func(a, b occ) int { return cmp.Or(a.k-b.k, a.at-b.at) }
	slices.SortFunc(want, less)
	slices.SortFunc(got, less)
	if !slices.Equal(got, want) {
		t.Errorf("groups found %v, finders one by one %v", got, want)
	}
}

func TestMultiFinderFindsEveryCase(t *testing.T) {
	m := newMultiFinder([][]byte{[]byte("firewall"), []byte("rate_limits"), []byte("srv")})
	for data, want := range map[string]bool{
		"FireWall": true, "RATE_LIMITS": true, "Srv": true, "rate-limits": false, "SR": false,
	} {
		if got := m.anyIn([]byte(data)); got != want {
			t.Errorf("%q: %v, want %v", data, got, want)
		}
	}
	many := [][]byte{}
	for _, w := range strings.Fields("firewall filter settings rate_limits ratelimit organizations tunnels bookmarks") {
		many = append(many, []byte(w))
	}
	if m := newMultiFinder(many); !m.anyIn([]byte("x.RateLimit(")) || !m.anyIn([]byte("api.FirewallRules")) || m.anyIn([]byte("Rate_Limit")) {
		t.Error("the table of many literals does not fold case")
	}
}

func TestMultiFinder(t *testing.T) {
	m := newMultiFinder([][]byte{[]byte("firewall"), []byte("rate_limits"), []byte("fire")})
	for data, want := range map[string]bool{
		"": false, "f": false, "fir": false, "xxfire": true, "a rate_limit": false, "rate_limits/": true, "firewal": true,
	} {
		if got := m.anyIn([]byte(data)); got != want {
			t.Errorf("%q: %v, want %v", data, got, want)
		}
	}
	if !newMultiFinder([][]byte{[]byte("x")}).anyIn([]byte("abcx")) || newMultiFinder(nil).anyIn([]byte("abc")) {
		t.Error("one-byte literals, no literals")
	}
}

func BenchmarkMultiFinder(b *testing.B) {
	lits := [][]byte{}
	for _, w := range strings.Fields("firewall filter settings rate_limits ratelimit organizations tunnels bookmarks analytics billing direct_upload script_monitor ip.geoip cf.threat_score wafpackage wafrule wafgroup wafoverride argotunnel accessbookmark") {
		lits = append(lits, []byte(w))
	}
	data := []byte(strings.Repeat("curl -s -X GET \"$API/zones/$ZONE_ID/dns_records?page=1&per_page=100\" -H \"Authorization: Bearer $TOKEN\" | jq '.result[] | .name'\n", 100))
	m := newMultiFinder(lits)
	b.Run("one pass", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			m.anyIn(data)
		}
	})
	fs := make([]finder, len(lits))
	for i, l := range lits {
		fs[i] = newFinder(l)
	}
	b.Run("a pass per literal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			anyIn(data, fs)
		}
	})
}

func TestToLowerAgreesWithByteByByte(t *testing.T) {
	var all []byte
	for c := 0; c < 256; c++ {
		all = append(all, byte(c))
	}
	for _, data := range [][]byte{all, []byte("ABC"), []byte("Zones/$ZONE_ID/Firewall/RULES é À"), bytes.Repeat([]byte("@AZ[`az{"), 9)} {
		want := make([]byte, len(data))
		for i, c := range data {
			want[i] = c
			if c >= 'A' && c <= 'Z' {
				want[i] = c + 32
			}
		}
		if got := toLower([]byte("prefix"), data); !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
			t.Errorf("toLower(%q) = %q, want %q", data, got[6:], want)
		}
	}
}

func TestRequiredLiteralIsTheRarestAndKeepsCase(t *testing.T) {
	for src, want := range map[string]struct {
		lit  string
		fold bool
	}{
		`/zones/[^/\s"'` + "`" + `]+/script_monitor\b`:          {"/zones/", false}, // z is rarer than any byte of the longer literal
		`DNS Validation Error`:                                  {"DNS Validation Error", false},
		`(?i)\b0xcc1[345]\b`:                                    {"0xcc1", true},
		`(?is)\bcontent-length\b.{0,300}?\btransfer-encoding\b`: {"transfer-encoding", true}, // the longer of equals
		`a+b`: {"", false},
	} {
		got, _ := requiredLiteral(src)
		if string(got.lit) != want.lit || len(got.lit) > 0 && got.fold != want.fold {
			t.Errorf("%s: %q (fold %v), want %q (fold %v)", src, got.lit, got.fold, want.lit, want.fold)
		}
	}
	m := newTextMatcher(catalog.Default())
	if len(m.literals) >= len(m.regexes) {
		t.Errorf("%d literals for %d patterns: patterns requiring the same literal should share its search", len(m.literals), len(m.regexes))
	}
}

func TestMultiFinderSearchesLiteralsOneByOneOnlyByRareBytes(t *testing.T) {
	if m := newMultiFinder([][]byte{[]byte("0xcc1"), []byte("chacha20")}); m.few == nil {
		t.Error("literals with a rare byte each (x, 2): want a search per literal")
	}
	if m := newMultiFinder([][]byte{[]byte("tests"), []byte("rates")}); m.few != nil {
		t.Error("literals of common bytes only: want the table's one pass")
	}
	if m := newMultiFinder([][]byte{[]byte("firewall.rules."), []byte("firewall.waf.overrides."), []byte("ratelimits."), []byte("filters.")}); len(m.fewGroups) != 2 {
		t.Errorf("%d searches, want 2: by w for both firewall names, by '.' for the others", len(m.fewGroups))
	}
	for _, m := range []*multiFinder{newMultiFinder([][]byte{[]byte("tests"), []byte("0xcc1")}), newMultiFinder([][]byte{[]byte("0xcc1"), []byte("chacha20")})} {
		if !m.anyIn([]byte("x = 0XCC13")) || m.anyIn([]byte("0xcc")) {
			t.Error("both ways find the same")
		}
	}
}
