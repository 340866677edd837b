package elixir

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// FuzzRead reads the cases and what the fuzzer makes of them: no panic, every position
// inside the source.
func FuzzRead(f *testing.F) {
	readertest.FuzzCases(f, Read, cases,
		"x = ~w\"a #{b} c\" <> ~S'''\n d\n''' |> f.() ?\\n :<<>> %{a: 1} <<1>>")
}
