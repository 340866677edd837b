package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// blocksOf lists a parsed body's top-level blocks and attributes with their ranges.
func blocksOf(t testing.TB, src []byte, start hcl.Pos) []string {
	f, diags := hclsyntax.ParseConfig(src, "t.tf", start)
	if diags.HasErrors() {
		t.Fatalf("parse at %v: %v\n%s", start, diags, src)
	}
	var out []string
	body := f.Body.(*hclsyntax.Body)
	for _, b := range body.Blocks {
		out = append(out, fmt.Sprintf("block %s %v %s", b.Type, b.Labels, b.Range()))
	}
	for name, a := range body.Attributes {
		out = append(out, fmt.Sprintf("attr %s %s", name, a.Range()))
	}
	return out
}

// TestHCLTopLevelAgreesWithTheParser: parsing each top-level item on its own, from its
// position, gives the blocks and ranges the whole file's parse gives.
func TestHCLTopLevelAgreesWithTheParser(t *testing.T) {
	srcs := map[string]string{
		"tricky": "# a { comment\nresource \"a\" \"b\" { // }\n  x = \"}${ \"{\" }\" /* } */\n  y = <<EOT\n}\n  ${z}\nEOT\n  z = <<-X\n    }\n    X\n  w = [for k, v in var.m : \"${k}{\" if v]\n}\n\nlocals {\n  a = { b = \"c\" }\n}\nvariable \"v\" {}\n/* multi\n line { */\nfoo = \"%{ if x }}%{ endif }\"\n",
		"crlf":   "resource \"a\" \"b\" {\r\n  x = 1\r\n}\r\n\r\nresource \"c\" \"d\" {\r\n}\r\n",
	}
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "repo", "terraform", "*.tf"))
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		srcs[m] = string(data)
	}
	dir := t.TempDir()
	genRepo(t, dir, 8, 4<<10)
	gen, _ := filepath.Glob(filepath.Join(dir, "*", "*.tf"))
	for _, m := range gen {
		data, _ := os.ReadFile(m)
		srcs[m] = string(data)
	}
	for name, src := range srcs {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := blocksOf(t, []byte(src), hcl.InitialPos)
			items, ok := hclTopLevel([]byte(src))
			if !ok {
				t.Fatal("not split")
			}
			var got []string
			for _, it := range items {
				got = append(got, blocksOf(t, []byte(src[it.start:it.end]), hcl.Pos{Line: it.line, Column: 1, Byte: it.start})...)
			}
			if strings.Join(sortedCopy(got), "\n") != strings.Join(sortedCopy(want), "\n") {
				t.Errorf("items parsed one by one:\n%s\nthe whole file:\n%s", strings.Join(sortedCopy(got), "\n"), strings.Join(sortedCopy(want), "\n"))
			}
		})
	}
	for _, bad := range []string{"resource \"a\" \"b\" {\n", "x = \"unterminated\n", "}\n", "y = <<EOT\nnever closed\n"} {
		if _, ok := hclTopLevel([]byte(bad)); ok {
			t.Errorf("%q: split, want the whole-file parse to report it", bad)
		}
	}
}

func sortedCopy(ss []string) []string { return slices.Sorted(slices.Values(ss)) }

// FuzzHCLTopLevel: whenever a file parses and splits, its items parsed one by one give the
// whole parse's blocks; the splitter never panics.
func FuzzHCLTopLevel(f *testing.F) {
	for _, s := range []string{"resource \"a\" \"b\" {\n  x = \"${y}\"\n}\n", "a = <<EOT\n}\nEOT\nb {\n}\n", "/* { */ c {}\n# }\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		items, ok := hclTopLevel(src)
		if !ok {
			return
		}
		whole, diags := hclsyntax.ParseConfig(src, "t.tf", hcl.InitialPos)
		if diags.HasErrors() {
			return
		}
		n := len(whole.Body.(*hclsyntax.Body).Blocks)
		got := 0
		for _, it := range items {
			part, diags := hclsyntax.ParseConfig(src[it.start:it.end], "t.tf", hcl.Pos{Line: it.line, Column: 1, Byte: it.start})
			if diags.HasErrors() {
				t.Fatalf("item %q of a file that parses does not parse: %v", src[it.start:it.end], diags)
			}
			got += len(part.Body.(*hclsyntax.Body).Blocks)
		}
		if got != n {
			t.Fatalf("%d blocks item by item, %d in the whole file", got, n)
		}
	})
}
