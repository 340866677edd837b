package golang

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// FuzzRead checks that Read never panics and that everything it returns is consistent: every
// position inside the file, one name per hole, call indexes that exist.
func FuzzRead(f *testing.F) {
	for _, cases := range [][]readCase{sdkCases, valueCases} {
		for _, tc := range cases {
			f.Add([]byte(tc.src))
		}
	}
	f.Add([]byte("package p\nvar s = \"unterminated\n"))
	f.Add([]byte("package p\nvar s = `unterminated\n"))
	f.Add([]byte("package p\n/* unterminated comment"))
	f.Add([]byte("package p\n//line other.go:1000:1\nvar s = fmt.Sprintf(\"%[2]*.[1]*d\", 1, 2)\n"))
	f.Add([]byte("package p\nconst a, b = b + \"x\", a + \"y\"\nvar c = a + b\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file := Read(src)
		if file == nil || file.Lang != "go" {
			t.Fatalf("Read returned %v", file)
		}
		if err := checkFile(src, file); err != nil {
			t.Fatal(err)
		}
	})
}

// checkFile returns what is inconsistent in file as read from src.
func checkFile(src []byte, file *code.File) error {
	lines := bytes.Split(src, []byte("\n"))
	inside := func(p code.Pos) error {
		if p.Line < 1 || p.Line > len(lines) || p.Col < 1 || p.Col > utf8.RuneCount(lines[p.Line-1])+1 {
			return fmt.Errorf("position %+v outside the file (%d lines)", p, len(lines))
		}
		return nil
	}
	for _, s := range file.Strings {
		if err := firstError(inside(s.Pos), inside(s.End)); err != nil {
			return fmt.Errorf("string %q: %w", s.Value, err)
		}
		if n := strings.Count(s.Value, code.HoleString); n != len(s.HoleNames) || !s.Literal() {
			return fmt.Errorf("string %q: %d holes, names %q", s.Value, n, s.HoleNames)
		}
		if s.Call >= len(file.Calls) || s.Call < -1 || (s.Call == -1 && s.Arg != -1) {
			return fmt.Errorf("string %q: call %d arg %d of %d calls", s.Value, s.Call, s.Arg, len(file.Calls))
		}
	}
	for _, c := range file.Calls {
		if err := firstError(inside(c.Pos), inside(c.End)); err != nil {
			return fmt.Errorf("call %q: %w", c.Callee, err)
		}
		for _, k := range c.Keys {
			if err := inside(k.Pos); err != nil {
				return fmt.Errorf("call %q key %q: %w", c.Callee, k.Name, err)
			}
		}
	}
	return nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestReadRealisticFile runs the checks of FuzzRead on the benchmark's generated file.
func TestReadRealisticFile(t *testing.T) {
	src := generated(64 << 10)
	file := Read(src)
	if err := checkFile(src, file); err != nil {
		t.Fatal(err)
	}
	n := len(file.Decls)
	if n < 40 || len(file.Calls) != 8*n || len(file.Strings) != 13*n+2 {
		t.Fatalf("%d calls, %d strings, %d decls", len(file.Calls), len(file.Strings), n)
	}
	want := "/zones/\x00/settings/brotli"
	if s := file.Strings[len(file.Strings)-3]; s.Value != want || s.Call != len(file.Calls)-1 || s.Arg != 1 {
		t.Errorf("last function's settings path = %+v, want %q given to the last call", s, want)
	}
}

// BenchmarkRead reads a generated Go file of about 1 MB.
func BenchmarkRead(b *testing.B) {
	src := generated(1 << 20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Read(src)
	}
}

// BenchmarkParseOnly is go/parser alone on the same file: the floor under BenchmarkRead.
func BenchmarkParseOnly(b *testing.B) {
	src := generated(1 << 20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution); err != nil {
			b.Fatal(err)
		}
	}
}

// generated returns realistic Go source of about size bytes: an API client with constants,
// formatted paths, joins, SDK calls and struct literals.
func generated(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`// Package client is generated for the benchmark.
package client

import (
	"context"
	"fmt"
	"net/http"
	"path"

	"github.com/cloudflare/cloudflare-go"
)

const (
	baseURL     = "https://api.cloudflare.com/client/v4"
	zonesPrefix = "/zones/"
)
`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `
// Resource%[1]d is one generated resource with a name and settings.
type Resource%[1]d struct {
	ID       string `+"`json:\"id\"`"+`
	ZoneID   string `+"`json:\"zone_id\"`"+`
	Settings map[string]interface{}
}

// Fetch%[1]d reads resource %[1]d — with a comment that is not code: "not/a/path".
func (c *Client) Fetch%[1]d(ctx context.Context, zoneID, id string) (*Resource%[1]d, error) {
	url := fmt.Sprintf("%%s/zones/%%s/firewall/rules/%%s?page=%%d", baseURL, zoneID, id, %[1]d)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("building request %%q: %%w", url, err)
	}
	p := path.Join(zonesPrefix, zoneID, "rate_limits", id)
	rule, err := c.api.FirewallRule(ctx, zoneID, id)
	if err != nil {
		return nil, err
	}
	for key, value := range map[string]string{"expression": rule.Filter.Expression, "action": "block"} {
		c.log.Debugf("%%s=%%s (%%s)", key, value, p)
	}
	_, err = c.api.UpdateFirewallRule(ctx, zoneID, cloudflare.FirewallRule{
		ID:          id,
		Description: "generated rule %[1]d",
		Action:      "challenge",
		Filter:      cloudflare.Filter{Expression: "(http.request.uri.path eq \"/login\")" + " and ip.src ne 10.0.0.%[1]d"},
	})
	c.do(req, zonesPrefix+zoneID+"/settings/"+"brotli")
	return &Resource%[1]d{ID: id, ZoneID: zoneID, Settings: map[string]interface{}{"value": "on"}}, err
}
`, i)
	}
	return b.Bytes()
}

// TestReadBoundsCopies: values made of values (constants doubling, a format repeating one
// argument, a join repeating its separator) stay within the file's size, not exponentially
// or quadratically larger.
func TestReadBoundsCopies(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nconst c0 = \"0123456789abcdef\"\n")
	for i := 1; i <= 64; i++ {
		fmt.Fprintf(&b, "const c%d = c%d + c%d\n", i, i-1, i-1)
	}
	big := strings.Repeat("x", 100<<10)
	fmt.Fprintf(&b, "var f = fmt.Sprintf(%q, %q)\n", strings.Repeat("%[1]s", 20<<10), big)
	fmt.Fprintf(&b, "var j = strings.Join([]string{%s}, %q)\n", strings.Repeat("a, ", 20<<10), big)
	src := []byte(b.String())
	file := Read(src)
	total := 0
	for _, s := range file.Strings {
		total += len(s.Value)
	}
	if limit := 3*len(src) + 2<<20; total > limit {
		t.Fatalf("values total %d bytes from a file of %d", total, len(src))
	}
	if got := file.Strings[1].Value; got != "0123456789abcdef0123456789abcdef" || file.Strings[1].Assigned != "c1" {
		t.Errorf("c1 = %q", got)
	}
}
