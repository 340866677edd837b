package expr

import (
	"fmt"
	"strings"
	"testing"
)

func TestScanFields(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // name@offset, in source order
	}{
		{"parses", `ip.geoip.country eq "US" and ssl`, "ip.geoip.country@0 ssl@29"},
		{"one per line", "ip.geoip.country eq \"US\"\nip.geoip.asnum eq 1\ncf.threat_score gt 5",
			"ip.geoip.country@0 ip.geoip.asnum@25 cf.threat_score@45"},
		{"names in strings are not fields", "http.host eq \"ip.geoip.country\"\nip.geoip.asnum eq 1", "http.host@0 ip.geoip.asnum@32"},
		{"after a bad escape", `http.host eq "a\d" $$ ip.geoip.asnum eq 1`, "http.host@0 ip.geoip.asnum@22"},
		{"regex literal", `http.host matches "\d\"" ) ip.geoip.country eq "x"`, "http.host@0 ip.geoip.country@27"},
		{"template placeholder", `ip.src in {${var.ip.geoip}} ) cf.threat_score gt 1`, "ip.src@0 cf.threat_score@30"},
		{"prose", "we still use ip.geoip.country here.", "we@0 ip.geoip.country@13"},
		{"unterminated string", `ip.geoip.asnum eq 1 ) "ip.geoip.country`, "ip.geoip.asnum@0"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range ScanFields(tc.src) {
				got = append(got, fmt.Sprintf("%s@%d", r.Name, r.Pos))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("ScanFields(%q) = %q, want %q", tc.src, g, tc.want)
			}
		})
	}
}

// FuzzScanFields: any input, a name at every position it reports, inside the source.
func FuzzScanFields(f *testing.F) {
	for _, c := range validCases {
		f.Add(c.src)
	}
	for _, c := range errorCases {
		f.Add(c.src)
	}
	f.Add("ip.geoip.country eq \"US\"\n) ${x} ip.geoip.asnum")
	f.Fuzz(func(t *testing.T, src string) {
		for _, r := range ScanFields(src) {
			if r.Pos < 0 || int(r.Pos)+len(r.Name) > len(src) || r.Name == "" {
				t.Fatalf("ScanFields(%q): %+v outside the source", src, r)
			}
		}
	})
}
