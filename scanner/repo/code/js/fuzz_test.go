package js

import (
	"strings"
	"testing"
)

// FuzzRead checks that Read never panics and that what it returns holds together
// (positions inside the file, a name per hole, calls in range) on any input.
func FuzzRead(f *testing.F) {
	for _, cases := range allCases {
		for _, tc := range cases {
			f.Add(tc.src)
		}
	}
	f.Add(string(benchSource(2000)))
	for _, s := range []string{"`${", "`${`${`", "/[/", "a<b<c<d>>>(", "((((", "{{{{", "'\\", "#!", "x = /=/; y", "</", "<a b={<c/>}>{'}</a>", "\ufeff#!x\n'\u2028'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkFile(t, src, Read([]byte(src)))
	})
}

// TestDeepNesting reads inputs nested far deeper than the reader follows: it must neither
// overflow its stack nor take long.
func TestDeepNesting(t *testing.T) {
	for _, unit := range []string{"(", "[", "{", "a<", "`${", "<a>", "f(", "x=>", "async (", "new ", "!", "a?b:", "<T>(", "class A{", "function(", "a.b.", "(a,", "{a(", "typeof ", "-"} {
		src := strings.Repeat(unit, 100000)
		checkFile(t, src, Read([]byte(src)))
	}
}
