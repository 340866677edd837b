package expr

import (
	"errors"
	"strings"
	"testing"
)

// syntaxErrors drops the length error, which a canonical print can earn
// (\xHH escapes are longer than the bytes they stand for).
func syntaxErrors(err error) ErrorList {
	var out, list ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			if !strings.Contains(e.Msg, " characters long; the limit is ") {
				out = append(out, e)
			}
		}
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, c := range validCases {
		f.Add(c.src)
	}
	for _, c := range errorCases {
		f.Add(c.src)
	}
	f.Add(walkSrc)
	f.Add(`x matches "[\"]\\" or y matches r##"a"#"##`)
	// The real-world corpus joins the seeds only when asked for.
	if dir := strings.TrimSpace(getenv("SUNSET_CORPUS")); dir != "" {
		for _, entries := range loadCorpus(f, dir) {
			for _, e := range entries {
				f.Add(e.Expr)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, value := range []bool{false, true} {
			e, err := parse(src, value)
			if e == nil || e.Root == nil {
				t.Fatalf("parse(%q) returned no tree", src)
			}
			_ = Print(e) // must not panic on partial trees
			// Partial trees too keep every span inside the source.
			Inspect(e, func(n Node) bool {
				if n != nil && (n.Pos() < 0 || n.End() < n.Pos() || int(n.End()) > len(src)) {
					t.Fatalf("parse(%q): node %T spans %d..%d", src, n, n.Pos(), n.End())
				}
				return true
			})
			if err != nil {
				for _, x := range errorList(t, err) {
					if x.Line < 1 || x.Col < 1 || x.Pos < 0 || int(x.Pos) > len(src) {
						t.Fatalf("parse(%q): bad error position %+v", src, x)
					}
					_ = x.Render(src)
				}
			}
			if len(syntaxErrors(err)) > 0 {
				continue
			}
			printed := Print(e)
			again, err := parse(printed, value)
			if errs := syntaxErrors(err); len(errs) > 0 {
				t.Fatalf("parse(%q) ok, but its print %q does not parse: %v", src, printed, errs)
			}
			if !Equal(e, again) {
				t.Fatalf("parse(print(ast)) != ast for %q: printed %q, reprinted %q", src, printed, Print(again))
			}
			if p2 := Print(again); p2 != printed {
				t.Fatalf("print is not a fixpoint for %q: %q then %q", src, printed, p2)
			}
		}
	})
}
