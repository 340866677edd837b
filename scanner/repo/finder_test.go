package repo

import (
	"bytes"
	"strings"
	"testing"
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
