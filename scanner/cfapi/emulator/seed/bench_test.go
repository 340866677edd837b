package seed

import "testing"

// BenchmarkGenerate10000 measures a 10,000-zone account (about 100 accounts).
func BenchmarkGenerate10000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Generate(10000, 1)
	}
}

// BenchmarkDemo measures building the demo account.
func BenchmarkDemo(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Demo()
	}
}
