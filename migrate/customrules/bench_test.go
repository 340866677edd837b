package customrules

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSample stands in for the corpus when SUNSET_CORPUS is unset: written
// for this test, with the corpus's shapes (sets, unpack, functions, regex,
// renamed fields, the threat score, an unparsable line).
var benchSample = []string{
	`http.request.uri.path eq "/login" and http.request.method eq "POST"`,
	`ip.src in {192.0.2.0/24 198.51.100.0/24 2001:db8::/32 203.0.113.1..203.0.113.20}`,
	`(http.host wildcard "*.example.com" or http.host eq "example.com") and not ssl`,
	`any(http.request.headers["accept"][*] contains "json")`,
	`any(lower(http.request.headers.names[*])[*] == "x-forwarded-host")`,
	`http.request.uri.path matches "^/(wp-admin|wp-login\\.php|xmlrpc\\.php)" and not cf.client.bot`,
	`ip.geoip.country in {"CN" "RU" "KP" "IR"} and cf.edge.server_port in {80 443 8080..8089}`,
	`starts_with(lower(url_decode(http.request.uri.query)), "q=") and len(http.request.uri.query) gt 200`,
	`cf.threat_score gt 14 or ip.geoip.asnum eq 64496`,
	`(http.request.uri.path ~ "^.*/wp-login.php$"`,
}

// corpusExpressions reads expressions.txt of the corpus (one per line), or
// returns the sample.
func corpusExpressions(b *testing.B) []string {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		b.Log("SUNSET_CORPUS is not set: benchmarking the embedded sample")
		return benchSample
	}
	f, err := os.Open(filepath.Join(dir, "expressions.txt"))
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkTranslateCorpus measures parse + rename + print + CEL check
// (uncached: CheckAST) + threat-score analysis of the corpus expressions,
// per expression. Run with -cpu 1 for the per-core figure.
func BenchmarkTranslateCorpus(b *testing.B) {
	srcs := corpusExpressions(b)
	TranslateExpression(srcs[0], Options{}) // build the shared CEL environment outside the timer
	opts := Options{Plan: "business"}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		for _, s := range srcs {
			TranslateExpression(s, opts)
			n++
		}
	}
	// CPU time (user+system of the process) rather than wall time: on a
	// shared machine the wall clock counts the time other processes ran.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "expr/cpu-s")
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "expr/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/expr")
	b.ReportMetric(float64(len(srcs)), "exprs/op")
}

// BenchmarkTranslateZone measures Translate on a demo-sized zone (sorting,
// pairing, rule building on top of the expressions).
func BenchmarkTranslateZone(b *testing.B) {
	var sets []ruleSet
	sets = append(sets, equivalenceSets()...)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sets {
			Translate(s.rules, Options{Plan: s.plan})
		}
	}
}
