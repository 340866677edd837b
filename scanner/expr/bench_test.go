package expr

import (
	"os"
	"testing"
)

func getenv(k string) string { return os.Getenv(k) }

// BenchmarkParse parses every valid corpus filter per iteration (or the
// table cases when SUNSET_CORPUS is unset) and reports expressions/s.
func BenchmarkParse(b *testing.B) {
	var exprs []string
	if dir := getenv("SUNSET_CORPUS"); dir != "" {
		for _, e := range loadCorpus(b, dir)["filter"] {
			if _, err := Parse(e.Expr); err == nil {
				exprs = append(exprs, e.Expr)
			}
		}
	} else {
		for _, c := range validCases {
			exprs = append(exprs, c.src)
		}
	}
	size := 0
	for _, s := range exprs {
		size += len(s)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range exprs {
			if _, err := Parse(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(exprs))/b.Elapsed().Seconds(), "exprs/s")
}

// BenchmarkPrint prints the same trees.
func BenchmarkPrint(b *testing.B) {
	var trees []*Expr
	for _, c := range validCases {
		e, err := Parse(c.src)
		if err != nil {
			b.Fatal(err)
		}
		trees = append(trees, e)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range trees {
			_ = Print(e)
		}
	}
}
