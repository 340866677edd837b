package ruby

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// FuzzRead reads the cases and what the fuzzer makes of them: no panic, every position
// inside the source.
func FuzzRead(f *testing.F) {
	readertest.FuzzCases(f, Read, cases,
		"x = <<~A + <<B\n  a\nA\nb\nB\n%w[a b] %i(c) /re/ ?a :\"s#{x}\" {a: 1}")
}
