package repo

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Reading a file's structure (parsing Terraform, JSON or YAML, reading program source)
// takes memory in proportion to its tokens: 20 to 60 bytes each, as tokens, trees and values,
// whatever the reader. A minified file packs a token in every other byte, so a 20 MB bundle
// would take over a gigabyte, and a CI job's memory limit would end the gate. So the
// structure of a file is read only up to a bound on its tokens (estimated by
// code.TokenEstimate, one pass over the bytes), per kind of file as its reader's cost per
// token says, which keeps one file near 220 MB at most; past it, the file's text checks run,
// its structured checks do not, and it is a run error (not fully read, exit 4) naming it, as
// a file nested past a bound is. The bounds are far above hand-written code (a 5 MiB file,
// the default --max-file-size, of dense minified code is within all but Terraform's).
// BenchmarkMinifiedFile measures time and peak memory at and past them.
var structureBounds = map[Kind]int{
	KindGo:        3_000_000, // go/parser's trees: about 70 bytes a token
	KindYAML:      2_000_000, // yaml.v3's nodes and sunset's tree: about 110 bytes a token
	KindTerraform: 800_000,   // hclsyntax: about 250 bytes a token; per top-level block (hclTooLarge)
}

// defaultStructureBound is the bound of the other kinds: JSON, and the code readers (about
// 40 bytes a token).
const defaultStructureBound = 5_000_000

// structureBudget is what the structure of the files checked at once may hold, in estimated
// tokens: a worker reading a large file waits for another to finish its own, so that two
// large files at once do not take twice the memory. Files of fewer than budgetFree bytes
// (and so fewer tokens) take none of it.
const (
	structureBudget = defaultStructureBound
	budgetFree      = 256 << 10
)

// newStructureBudget is the budget of one Checker.
func newStructureBudget() *semaphore.Weighted { return semaphore.NewWeighted(structureBudget) }

// structureBound is the bound of kind.
func structureBound(kind Kind) int {
	if b, ok := structureBounds[kind]; ok {
		return b
	}
	return defaultStructureBound
}

// structure reserves what reading data's structure costs and returns what gives it back;
// past kind's bound it returns the error (Limit) the caller reports instead of reading it.
func (c *Checker) structure(kind Kind, data []byte) (release func(), pe *parseError) {
	if len(data) < budgetFree {
		return func() {}, nil
	}
	n := code.TokenEstimate(data)
	// Terraform is bounded per top-level block (hclTooLarge): the parser is given one at a time.
	if pe := overBound(kind, n, 1); pe != nil && kind != KindTerraform {
		return nil, pe
	}
	w := int64(min(n, structureBudget))
	_ = c.budget.Acquire(context.Background(), w) // fails only when its context ends
	return func() { c.budget.Release(w) }, nil
}

// overBound is the error of a file (or, for Terraform, a top-level block starting at line)
// of about n tokens when that is past kind's bound, nil otherwise.
func overBound(kind Kind, n, line int) *parseError {
	bound := structureBound(kind)
	if n <= bound {
		return nil
	}
	return &parseError{Line: line, Col: 1, Limit: true, Msg: fmt.Sprintf(
		"about %d tokens, more than sunset reads the structure of at once (%d): minified or generated? its text was checked; --exclude it if it is not yours", n, bound)}
}

// hclTooLarge returns the error of the first top-level item of native HCL that keep wants
// parsed (the whole file when it does not split into items) past Terraform's bound; the
// parser is given one item at a time, so a large file of ordinary blocks is read.
func hclTooLarge(data []byte, keep func(start, end int) bool) *parseError {
	if len(data) < budgetFree {
		return nil
	}
	items, ok := hclTopLevel(data)
	if !ok {
		items = []hclBlock{{start: 0, end: len(data), line: 1}}
	}
	for _, it := range items {
		if it.end-it.start < budgetFree || !keep(it.start, it.end) {
			continue
		}
		if pe := overBound(KindTerraform, code.TokenEstimate(data[it.start:it.end]), it.line); pe != nil {
			return pe
		}
	}
	return nil
}
