package celcheck

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// benchSample stands in for the corpus when SUNSET_CORPUS is unset: written
// for this test, covering the same shapes (sets, unpack, functions, regex).
var benchSample = []string{
	`http.request.uri.path eq "/login" and http.request.method eq "POST"`,
	`ip.src in {192.0.2.0/24 198.51.100.0/24 2001:db8::/32 203.0.113.1..203.0.113.20}`,
	`(http.host wildcard "*.example.com" or http.host eq "example.com") and not ssl`,
	`any(http.request.headers["accept"][*] contains "json")`,
	`any(lower(http.request.headers.names[*])[*] == "x-forwarded-host")`,
	`http.request.uri.path matches "^/(wp-admin|wp-login\\.php|xmlrpc\\.php)" and not cf.client.bot`,
	`ip.src.country in {"CN" "RU" "KP" "IR"} and cf.edge.server_port in {80 443 8080..8089}`,
	`starts_with(lower(url_decode(http.request.uri.query)), "q=") and len(http.request.uri.query) gt 200`,
	`cf.threat_score gt 14 or ip.geoip.asnum eq 64496`,
	`http.user_agent contains "curl" or http.user_agent eq "" or http.referer contains "spam.example"`,
}

// BenchmarkCheckCorpus measures parse + lower + CEL check of the corpus's
// filter expressions without the result cache.
func BenchmarkCheckCorpus(b *testing.B) {
	srcs := benchSample
	if dir := corpusDirOrEmpty(); dir != "" {
		srcs = nil
		for _, e := range loadCorpus(b)["filter"] {
			srcs = append(srcs, e.Expr)
		}
	}
	if _, err := sharedEnv(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, s := range srcs {
			checkSource(s, Options{Plan: "business", Phase: "http_request_firewall_custom"})
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "expr/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/expr")
	b.ReportMetric(float64(len(srcs)), "exprs/op")
}

// BenchmarkEval measures evaluation of a checked program on one request.
func BenchmarkEval(b *testing.B) {
	c := Check(`any(http.request.headers["accept"][*] contains "json") or ip.src in {10.0.0.0/8 192.0.2.0/24} or http.host wildcard "*.example.com"`, Options{})
	req := Request{"http.request.headers": map[string][]string{"accept": {"text/html"}}, "ip.src": "203.0.113.9", "http.host": "a.example.org"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Program.Eval(req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateRequests generates the requests verification evaluates for one rule.
func BenchmarkGenerateRequests(b *testing.B) {
	e, err := expr.Parse(`(http.host eq "example.com" and ip.src in {192.0.2.0/24}) or http.request.uri.path contains "/admin" or cf.threat_score gt 10`)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if len(GenerateRequests(e, 64, 1)) != 64 {
			b.Fatal("wrong count")
		}
	}
}
