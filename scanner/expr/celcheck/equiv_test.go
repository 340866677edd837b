package celcheck

import (
	"reflect"
	"testing"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// An expression and its canonical printed form (expr.Print) give the same
// answer on generated requests, and the generated requests make each
// expression both true and false.
func TestEquivalenceWithCanonicalForm(t *testing.T) {
	srcs := []string{
		`http.host wildcard "*.example.com" && http.request.uri.path ~ "^/wp-(login|admin)"`,
		`ip.src in {192.0.2.0/24 2001:db8::/32 198.51.100.1..198.51.100.9} or cf.edge.server_port in {80 8000..8009}`,
		`any(lower(http.request.headers.names[*])[*] == "x-api-key") ^^ !ssl`,
		`http.request.method in {"GET" "HEAD"} and not http.request.uri.path contains "/admin"`,
		`any(http.request.headers["accept"][*] contains "json") || http.user_agent strict wildcard "curl/*"`,
		`starts_with(lower(http.request.uri.path), "/api/") and cf.edge.server_port ge 1024`,
		`(ip.geoip.country eq "GB" or ip.src.country eq "FR") and ip.src.asnum != 13335`,
	}
	for i, src := range srcs {
		e, err := expr.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		canon := expr.Print(e.Root)
		a, b := Check(src, Options{}), Check(canon, Options{})
		if !a.Valid || !b.Valid {
			t.Fatalf("%s / %s: %v %v", src, canon, a.Diagnostics, b.Diagnostics)
		}
		reqs := GenerateRequests(e, 300, int64(i))
		if len(reqs) != 300 {
			t.Fatalf("%d requests", len(reqs))
		}
		counts := map[bool]int{}
		for _, r := range reqs {
			x, err1 := a.Program.Eval(r, nil)
			y, err2 := b.Program.Eval(r, nil)
			if err1 != nil || err2 != nil || x != y {
				t.Fatalf("%s vs %s on %v: %v/%v %v/%v", src, canon, r, x, err1, y, err2)
			}
			counts[x]++
		}
		if counts[true] == 0 || counts[false] == 0 {
			t.Errorf("%s: generated requests give only one answer: %v", src, counts)
		}
		t.Logf("%s: %d true, %d false", canon, counts[true], counts[false])
	}
}

// A difference is detected: a rewritten expression that is not equivalent
// gives another answer on some generated request.
func TestEquivalenceDetectsDifference(t *testing.T) {
	e, _ := expr.Parse(`http.host wildcard "*.example.com"`)
	a := Check(`http.host wildcard "*.example.com"`, Options{})
	b := Check(`http.host strict wildcard "*.example.com"`, Options{})
	diff := 0
	for _, r := range GenerateRequests(e, 300, 7) {
		x, _ := a.Program.Eval(r, nil)
		y, _ := b.Program.Eval(r, nil)
		if x != y {
			diff++
		}
	}
	if diff == 0 {
		t.Error("wildcard and strict wildcard agree on every generated request")
	}
}

func TestGenerateRequestsDeterministic(t *testing.T) {
	e, _ := expr.Parse(`ip.geoip.country eq "GB" and any(http.request.headers["x"][*] eq "y")`)
	a, b := GenerateRequests(e, 20, 42), GenerateRequests(e, 20, 42)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different requests")
	}
	if reflect.DeepEqual(a, GenerateRequests(e, 20, 43)) {
		t.Error("different seeds, same requests")
	}
	for _, r := range a {
		if r["ip.geoip.country"] != r["ip.src.country"] {
			t.Errorf("renamed field and its new name differ: %v vs %v", r["ip.geoip.country"], r["ip.src.country"])
		}
	}
	if GenerateRequests(e, 0, 1) != nil {
		t.Error("n=0 gives requests")
	}
}
