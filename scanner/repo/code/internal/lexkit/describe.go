package lexkit

import (
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Describe writes f one item a line, for tests to compare exactly:
//
//	str 3:9 "zones/\x00/filters" key=url as=u call=0 arg=1 holes=zone_id
//	call 3:5 client.get new args=,zone keys=method@0
//	import Foo\Bar
//	decl name
//
// Fields that are empty (or -1) are left out. Members of a callee are joined with ".".
func Describe(f *code.File) []string {
	var out []string
	for _, s := range f.Imports {
		out = append(out, "import "+s)
	}
	for _, s := range f.Decls {
		out = append(out, "decl "+s)
	}
	for _, s := range f.Strings {
		var b strings.Builder
		fmt.Fprintf(&b, "str %d:%d %q", s.Pos.Line, s.Pos.Col, s.Value)
		field(&b, "key", s.Key)
		field(&b, "as", s.Assigned)
		if s.Call >= 0 {
			fmt.Fprintf(&b, " call=%d", s.Call)
		}
		if s.Arg >= 0 {
			fmt.Fprintf(&b, " arg=%d", s.Arg)
		}
		if len(s.HoleNames) > 0 {
			field(&b, "holes", strings.Join(s.HoleNames, ","))
		}
		out = append(out, b.String())
	}
	for _, c := range f.Calls {
		var b strings.Builder
		fmt.Fprintf(&b, "call %d:%d %s", c.Pos.Line, c.Pos.Col, strings.Join(c.Callee, "."))
		if c.New {
			b.WriteString(" new")
		}
		if len(c.ArgIdents) > 0 {
			field(&b, "args", strings.Join(c.ArgIdents, ","))
		}
		var keys []string
		for _, k := range c.Keys {
			keys = append(keys, fmt.Sprintf("%s@%d", k.Name, k.Depth))
		}
		field(&b, "keys", strings.Join(keys, ","))
		out = append(out, b.String())
	}
	return out
}

func field(b *strings.Builder, name, v string) {
	if v != "" {
		fmt.Fprintf(b, " %s=%s", name, v)
	}
}
