package python

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// str is a code.Str as the tests write it: the call it is given to by its callee.
type str struct {
	val        string
	line, col  int
	key, asg   string
	call       string // callee joined with "."; "" for none
	arg        int
	holes      []string
	endL, endC int // checked when endL > 0
}

func (s str) String() string {
	return fmt.Sprintf("{%q %d:%d-%d:%d key=%q asg=%q call=%q arg=%d holes=%q}", s.val, s.line, s.col, s.endL, s.endC, s.key, s.asg, s.call, s.arg, s.holes)
}

func strsOf(f *code.File, withEnd bool) []str {
	out := []str{}
	for _, s := range f.Strings {
		w := str{val: s.Value, line: s.Pos.Line, col: s.Pos.Col, key: s.Key, asg: s.Assigned, arg: s.Arg, holes: s.HoleNames}
		if s.Call >= 0 {
			w.call = strings.Join(f.Calls[s.Call].Callee, ".")
		}
		if withEnd {
			w.endL, w.endC = s.End.Line, s.End.Col
		}
		out = append(out, w)
	}
	return out
}

// noCall is the Arg of a value given to no call.
const noCall = -1

var stringTests = []struct {
	name, src string
	want      []str
}{
	{"plain", `x = 'abc'`, []str{{val: "abc", line: 1, col: 5, asg: "x", arg: noCall}}},
	{"escapes", `s = "a\tb\\c\x41\u00e9\N{DASH}\q"`, []str{{val: "a\tb\\cAé\uFFFD\\q", line: 1, col: 5, asg: "s", arg: noCall}}},
	{"raw", `s = r"\d+\"x"`, []str{{val: `\d+\"x`, line: 1, col: 5, asg: "s", arg: noCall}}},
	{"prefixes", "a = Rb'x' + bR'y' + U'z' + BR\"w\" + Fr'{q}' + rF'v'",
		[]str{{val: "xyzw\x00v", line: 1, col: 5, asg: "a", arg: noCall, holes: []string{"q"}}}},
	{"python 2 prefix", `a = ur'\d'`, []str{{val: `\d`, line: 1, col: 5, asg: "a", arg: noCall}}},
	{"byte order mark", "\ufeffa = 'x'", []str{{val: "x", line: 1, col: 5, asg: "a", arg: noCall}}},
	{"not a prefix", `ab'x'`, []str{{val: "x", line: 1, col: 3, arg: noCall}}},
	{"triple", "s = '''a\n'b'\nc'''\nt = \"\"\"x\"\"\"", []str{
		{val: "a\n'b'\nc", line: 1, col: 5, asg: "s", arg: noCall, endL: 3, endC: 5},
		{val: "x", line: 4, col: 5, asg: "t", arg: noCall, endL: 4, endC: 12}}},
	{"continuation in string", "s = 'a\\\nb'", []str{{val: "ab", line: 1, col: 5, asg: "s", arg: noCall, endL: 2, endC: 3}}},
	{"concat", `u = "/zones/" + zone_id + "/filters"`, []str{
		{val: "/zones/\x00/filters", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone_id"}, endL: 1, endC: 37}}},
	{"concat starting with names", `u = base + zid + "/filters"`, []str{
		{val: "\x00/filters", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"base"}}}},
	{"concat of calls and members", `u = "/zones/" + self.zone_id + get() + "/x/" + str(rule.id) + d["k"]`, []str{
		{val: "/zones/\x00/x/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone_id", "id"}},
		{val: "k", line: 1, col: 65, arg: noCall}}},
	{"adjacent", "u = ('/zones/'\n     \"abc\" f'/{x}')", []str{
		{val: "/zones/abc/\x00", line: 1, col: 6, asg: "u", arg: noCall, holes: []string{"x"}, endL: 2, endC: 19}}},
	{"only holes", `u = a + b` + "\n" + `v = "" + x`, nil},
	{"percent", `u = "/zones/%s/filters" % zid`, []str{
		{val: "/zones/\x00/filters", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid"}}}},
	{"percent tuple", `u = "/zones/%s/%d/%-5.2f %% %r" % (zone.id, n, "lit", 3)`, []str{
		{val: "/zones/\x00/\x00/\x00 % \x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"id", "n", "", ""}},
		{val: "lit", line: 1, col: 48, asg: "u", arg: noCall}}},
	{"percent substitutes a %s string", `u = "%s/%s" % ("/zones", zid)`, []str{
		{val: "/zones/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid"}}}},
	{"percent mapping", `u = "/zones/%(zone)s/rules/%(id)d" % {"zone": z, "id": i}`, []str{
		{val: "/zones/\x00/rules/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone", "id"}},
		{val: "zone", line: 1, col: 39, arg: noCall},
		{val: "id", line: 1, col: 50, arg: noCall}}},
	{"percent binds tighter than plus", `u = BASE + "/zones/%s" % z + "/x"`, []str{
		{val: "\x00/zones/\x00/x", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"BASE", "z"}}}},
	{"not a format", `x = a % b`, nil},
	{"format", `u = "/zones/{}/settings/{name}/{0}/{{x}}".format(zid, name=setting)`, []str{
		{val: "/zones/\x00/settings/\x00/\x00/{x}", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid", "setting", "zid"}}}},
	{"format field names", `u = "/a/{zone_id}/{z.id}/{0[k]}/{:>10}".format(zone_id=get(), z=zone, *a)`, []str{
		{val: "/a/\x00/\x00/\x00/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone_id", "id", "", ""}}}},
	{"format with a string argument", `u = "{}/zones/{}".format("https://h", zid)`, []str{
		{val: "https://h/zones/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid"}}}},
	{"fstring", `u = f"/zones/{zone_id}/rules/{self.rule.id!r:>{width}}/{x + 1}/{{lit}}"`, []str{
		{val: "/zones/\x00/rules/\x00/\x00/{lit}", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone_id", "id", ""}}}},
	{"fstring nested quotes", `u = f"/zones/{d["zone"]}/x/{f'{y}'}" + f'{a['b']}'`, []str{
		{val: "/zones/\x00/x/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"", "y"}},
		{val: "zone", line: 1, col: 17, arg: noCall},
		{val: "b", line: 1, col: 45, arg: noCall}}},
	{"fstring call inside", `u = f"{requests.get('/zones/' + z)}/x"`, []str{
		{val: "\x00/x", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{""}},
		{val: "/zones/\x00", line: 1, col: 21, call: "requests.get", arg: 0, holes: []string{"z"}}}},
	{"fstring triple multiline", "u = f'''/zones/{\n  zone_id\n}/x\n'''", []str{
		{val: "/zones/\x00/x\n", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zone_id"}, endL: 4, endC: 4}}},
	{"fstring debug and conversion", `u = f"/a/{x=}/{y!s}/{z:{w}.{p}}"`, []str{
		{val: "/a/\x00/\x00/\x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"x", "y", "z"}}}},
	{"join", `u = "/".join(["zones", zid, "/filters"])`, []str{
		{val: "zones/\x00/filters", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid"}}}},
	{"join other separator", `u = ", ".join(("a", b))`, []str{
		{val: "a, \x00", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"b"}}}},
	{"join of a generator", `u = "/".join(x for x in ["a"])`, []str{
		{val: "/", line: 1, col: 5, arg: noCall},
		{val: "a", line: 1, col: 26, call: "join", arg: -1}}},
	{"path joins", "a = os.path.join(BASE, 'zones', zid, '/filters')\nb = urljoin(base + '/', '/zones')\nc = posixpath.join('a/', x)", []str{
		{val: "\x00/zones/\x00/filters", line: 1, col: 18, asg: "a", arg: noCall, holes: []string{"BASE", "zid"}},
		{val: "\x00/zones", line: 2, col: 13, asg: "b", arg: noCall, holes: []string{"base"}},
		{val: "a/\x00", line: 3, col: 20, asg: "c", arg: noCall, holes: []string{"x"}}}},
	{"assigned", "self.url = 'a'\nurl: str = 'b'\nx = y = 'c'\nz += 'd'\nd['k'] = 'e'\n(w := 'f')", []str{
		{val: "a", line: 1, col: 12, asg: "url", arg: noCall},
		{val: "b", line: 2, col: 12, asg: "url", arg: noCall},
		{val: "c", line: 3, col: 9, asg: "y", arg: noCall},
		{val: "d", line: 4, col: 6, asg: "z", arg: noCall},
		{val: "k", line: 5, col: 3, arg: noCall},
		{val: "e", line: 5, col: 10, key: "k", arg: noCall},
		{val: "f", line: 6, col: 7, asg: "w", arg: noCall}}},
	{"call arguments", `cf.zones.filters.post(zone_id, "/x", data={'expression': 'ip.src eq 1', 'action': 'block'})`, []str{
		{val: "/x", line: 1, col: 32, call: "cf.zones.filters.post", arg: 1},
		{val: "expression", line: 1, col: 44, call: "cf.zones.filters.post", arg: -1},
		{val: "ip.src eq 1", line: 1, col: 58, key: "expression", call: "cf.zones.filters.post", arg: -1},
		{val: "action", line: 1, col: 73, call: "cf.zones.filters.post", arg: -1},
		{val: "block", line: 1, col: 83, key: "action", call: "cf.zones.filters.post", arg: -1}}},
	{"keyword argument", `requests.request(method="POST", url=BASE + "/zones")`, []str{
		{val: "POST", line: 1, col: 25, key: "method", call: "requests.request", arg: 0},
		{val: "\x00/zones", line: 1, col: 37, key: "url", call: "requests.request", arg: 1, holes: []string{"BASE"}}}},
	{"key passed to a wrapper", `cloudflare.Ruleset("r", rules=[{"expression": pulumi.Output.concat("a", x)}], name=pulumi.String("n"))`, []str{
		{val: "r", line: 1, col: 20, call: "cloudflare.Ruleset", arg: 0},
		{val: "expression", line: 1, col: 33, call: "cloudflare.Ruleset", arg: -1},
		{val: "a", line: 1, col: 68, key: "expression", call: "pulumi.Output.concat", arg: 0},
		{val: "n", line: 1, col: 98, key: "name", call: "pulumi.String", arg: 0}}},
	{"docstrings and comments", "'''Module doc.'''\n# 'not a string'\ndef f():\n    \"\"\"Doc.\"\"\"  # \"nor this\"\n", []str{
		{val: "Module doc.", line: 1, col: 1, arg: noCall},
		{val: "Doc.", line: 4, col: 5, arg: noCall}}},
	{"unicode columns", "s = 'héllo' + \"/zönes/\" + x  # é\nt = 'ü'", []str{
		{val: "héllo/zönes/\x00", line: 1, col: 5, asg: "s", arg: noCall, holes: []string{"x"}, endL: 1, endC: 28},
		{val: "ü", line: 2, col: 5, asg: "t", arg: noCall}}},
	{"unicode before a string", "ñame = f'ü{é}' ; y = '/zones'", []str{
		{val: "ü\x00", line: 1, col: 8, asg: "ñame", arg: noCall, holes: []string{"é"}},
		{val: "/zones", line: 1, col: 22, asg: "y", arg: noCall}}},
	{"crlf", "a = 'x'\r\nb = 'y'\rc = 'z'", []str{
		{val: "x", line: 1, col: 5, asg: "a", arg: noCall},
		{val: "y", line: 2, col: 5, asg: "b", arg: noCall},
		{val: "z", line: 3, col: 5, asg: "c", arg: noCall}}},
	{"bytes escapes", `b = b'\xef\xbb\xbf\101'`, []str{{val: "\xef\xbb\xbfA", line: 1, col: 5, asg: "b", arg: noCall}}},
	{"nul", "a = 'x\x00y\\0'", []str{{val: "x\uFFFDy\uFFFD", line: 1, col: 5, asg: "a", arg: noCall}}},
	{"unterminated", "a = 'abc\nb = \"\"\"def", []str{
		{val: "abc", line: 1, col: 5, asg: "a", arg: noCall},
		{val: "def", line: 2, col: 5, asg: "b", arg: noCall}}},
	{"unterminated fstring", "a = f'abc{x\nb = 'd'", []str{
		{val: "abc\x00", line: 1, col: 5, asg: "a", arg: noCall, holes: []string{"x"}},
		{val: "d", line: 2, col: 5, asg: "b", arg: noCall}}},
	{"ternary and comparison", `m = "POST" if x == "a" else "PUT"`, []str{
		{val: "POST", line: 1, col: 5, asg: "m", arg: noCall},
		{val: "a", line: 1, col: 20, arg: noCall},
		{val: "PUT", line: 1, col: 29, asg: "m", arg: noCall}}},
	{"comprehension", `urls = ["/zones/" + z for z in zones if z != "x"]`, []str{
		{val: "/zones/\x00", line: 1, col: 9, arg: noCall, holes: []string{"z"}},
		{val: "x", line: 1, col: 46, arg: noCall}}},
	{"lambda default and body", `f = lambda a, b="/d": "/zones/" + a`, []str{
		{val: "/d", line: 1, col: 17, arg: noCall},
		{val: "/zones/\x00", line: 1, col: 23, asg: "f", arg: noCall, holes: []string{"a"}}}},
	{"def defaults and annotations", "def f(url: 'Url' = '/x', *a, k: int = 1, **kw) -> 'R':\n    return url", []str{
		{val: "Url", line: 1, col: 12, arg: noCall},
		{val: "/x", line: 1, col: 20, asg: "url", arg: noCall},
		{val: "R", line: 1, col: 51, arg: noCall}}},
	{"encode keeps the value", `requests.post(u, data='{"a": 1}'.encode())`, []str{
		{val: `{"a": 1}`, line: 1, col: 23, key: "data", call: "requests.post", arg: 1}}},
	{"method on a string", `x = "a,b".split(",")`, []str{
		{val: "a,b", line: 1, col: 5, arg: noCall},
		{val: ",", line: 1, col: 17, call: "split", arg: 0}}},
	{"line continuation", "u = '/zones/' + \\\n    zid + '/x'", []str{
		{val: "/zones/\x00/x", line: 1, col: 5, asg: "u", arg: noCall, holes: []string{"zid"}}}},
	{"subscript of a string", `x = "abc"[1:]`, []str{{val: "abc", line: 1, col: 5, asg: "x", arg: noCall}}},
}

func TestStrings(t *testing.T) {
	tests := stringTests
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withEnd := false
			for _, w := range tt.want {
				withEnd = withEnd || w.endL > 0
			}
			got := strsOf(Read([]byte(tt.src)), withEnd)
			want := tt.want
			if want == nil {
				want = []str{}
			}
			if withEnd {
				for i := range want {
					if want[i].endL == 0 && i < len(got) {
						want[i].endL, want[i].endC = got[i].endL, got[i].endC
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("source:\n%s\ngot:\n%v\nwant:\n%v", tt.src, got, want)
			}
		})
	}
}

// call is a code.Call as the tests write it.
type call struct {
	callee     string // joined with "."
	line, col  int
	endL, endC int
	idents     []string
	keys       string // "name@line:col/depth ..."
}

func callsOf(f *code.File) []call {
	out := []call{}
	for _, c := range f.Calls {
		w := call{callee: strings.Join(c.Callee, "."), line: c.Pos.Line, col: c.Pos.Col, endL: c.End.Line, endC: c.End.Col, idents: c.ArgIdents}
		var keys []string
		for _, k := range c.Keys {
			keys = append(keys, fmt.Sprintf("%s@%d:%d/%d", k.Name, k.Pos.Line, k.Pos.Col, k.Depth))
		}
		w.keys = strings.Join(keys, " ")
		out = append(out, w)
	}
	return out
}

var callTests = []struct {
	name, src string
	want      []call
}{
	{"sdk chain", `r = cf.zones.firewall.rules.get(zone_id)`,
		[]call{{callee: "cf.zones.firewall.rules.get", line: 1, col: 29, endL: 1, endC: 40, idents: []string{"zone_id"}}}},
	{"self chain", `self.cf.zones.filters.post(self.zone_id, data=d)`,
		[]call{{callee: "self.cf.zones.filters.post", line: 1, col: 23, endL: 1, endC: 48, idents: []string{"zone_id", "d"}, keys: "data@1:42/0"}}},
	{"constructor with keywords", `cf = CloudFlare.CloudFlare(email=e, token="t")`,
		[]call{{callee: "CloudFlare.CloudFlare", line: 1, col: 17, endL: 1, endC: 46, idents: []string{"e", ""}, keys: "email@1:28/0 token@1:37/0"}}},
	{"call of a call result", `a.b().c.d(x)`, []call{
		{callee: "a.b", line: 1, col: 3, endL: 1, endC: 5},
		{callee: "a.b.c.d", line: 1, col: 9, endL: 1, endC: 12, idents: []string{"x"}}}},
	{"subscript in the chain", `clients["cf"].zones.get()`, []call{
		{callee: "clients.zones.get", line: 1, col: 21, endL: 1, endC: 25}}},
	{"nested calls in order", `requests.post(url(base), json=payload(x), **kw)`, []call{
		{callee: "requests.post", line: 1, col: 10, endL: 1, endC: 47, idents: []string{"", "", ""}, keys: "json@1:26/0"},
		{callee: "url", line: 1, col: 15, endL: 1, endC: 23, idents: []string{"base"}},
		{callee: "payload", line: 1, col: 31, endL: 1, endC: 40, idents: []string{"x"}}}},
	{"dict keys depth", `f({'expression': e, 'nested': {'action': a}}, rules=[{'id': 1}], **{'x': 1})`, []call{
		{callee: "f", line: 1, col: 1, endL: 1, endC: 76, idents: []string{"", "", ""},
			keys: "expression@1:4/0 nested@1:21/0 action@1:32/1 rules@1:47/0 id@1:55/1 x@1:69/0"}}},
	{"multi-line call", "client.firewall.rules.create(\n    zone_id=zid,\n    filter={\"expression\": x},\n)", []call{
		{callee: "client.firewall.rules.create", line: 1, col: 23, endL: 4, endC: 1, idents: []string{"zid", ""},
			keys: "zone_id@2:5/0 filter@3:5/0 expression@3:13/1"}}},
	{"pulumi resource", `rule = cloudflare.FirewallRule("n", zone_id=z, action="block")`, []call{
		{callee: "cloudflare.FirewallRule", line: 1, col: 19, endL: 1, endC: 62, idents: []string{"", "z", ""}, keys: "zone_id@1:37/0 action@1:48/0"}}},
	{"decorator, lambda, comprehension", "@app.route('/x', methods=['POST'])\ndef f(): return sorted(xs, key=lambda v: v.get('id'))\n[g(i) for i in range(3)]", []call{
		{callee: "app.route", line: 1, col: 6, endL: 1, endC: 34, idents: []string{"", ""}, keys: "methods@1:18/0"},
		{callee: "sorted", line: 2, col: 17, endL: 2, endC: 53, idents: []string{"xs", ""}, keys: "key@2:28/0"},
		{callee: "v.get", line: 2, col: 44, endL: 2, endC: 52, idents: []string{""}},
		{callee: "g", line: 3, col: 2, endL: 3, endC: 5, idents: []string{"i"}},
		{callee: "range", line: 3, col: 16, endL: 3, endC: 23, idents: []string{""}}}},
	{"await and async", "async def f():\n    async with s.get(u) as r:\n        return await r.json()", []call{
		{callee: "s.get", line: 2, col: 18, endL: 2, endC: 23, idents: []string{"u"}},
		{callee: "r.json", line: 3, col: 24, endL: 3, endC: 29}}},
	{"format and joins are calls too", `u = "{}".format(x) + os.path.join(a, "b") + str(c)`, []call{
		{callee: "format", line: 1, col: 10, endL: 1, endC: 18, idents: []string{"x"}},
		{callee: "os.path.join", line: 1, col: 30, endL: 1, endC: 41, idents: []string{"a", ""}},
		{callee: "str", line: 1, col: 45, endL: 1, endC: 50, idents: []string{"c"}}}},
	{"call in a format spec", `f'{x:{len(str(n))}d}'`, []call{
		{callee: "len", line: 1, col: 7, endL: 1, endC: 17, idents: []string{""}},
		{callee: "str", line: 1, col: 11, endL: 1, endC: 16, idents: []string{"n"}}}},
	{"unicode before a call", `ü = cf.zones.get(é)`, []call{
		{callee: "cf.zones.get", line: 1, col: 14, endL: 1, endC: 19, idents: []string{"é"}}}},
	{"unterminated call", "f(a, 'b'", []call{{callee: "f", line: 1, col: 1, endL: 1, endC: 9, idents: []string{"a", ""}}}},
}

func TestCalls(t *testing.T) {
	tests := callTests
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callsOf(Read([]byte(tt.src)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("source:\n%s\ngot:\n%+v\nwant:\n%+v", tt.src, got, tt.want)
			}
		})
	}
}

const importsSource = `import CloudFlare
import os.path, sys as system
import pulumi_cloudflare as cloudflare
from cloudflare import Cloudflare, APIError
from . import sibling
from ..pkg.mod import (a,
    b)
mod = importlib.import_module("cloudflare.types")

def top(x): pass

class C(Base, metaclass=M):
    async def method(self):
        def inner(): ...
        return lambda: 1

    @property
    def prop(self): return 1
`

func TestImportsAndDecls(t *testing.T) {
	f := Read([]byte(importsSource))
	if f.Lang != "python" {
		t.Errorf("Lang = %q", f.Lang)
	}
	wantImports := []string{"CloudFlare", "os.path", "sys", "pulumi_cloudflare", "cloudflare", ".", "..pkg.mod", "cloudflare.types"}
	if !reflect.DeepEqual(f.Imports, wantImports) {
		t.Errorf("Imports = %q, want %q", f.Imports, wantImports)
	}
	wantDecls := []string{"top", "method", "inner", "prop"}
	if !reflect.DeepEqual(f.Decls, wantDecls) {
		t.Errorf("Decls = %q, want %q", f.Decls, wantDecls)
	}
}

var substitutionTests = []struct {
	name, src string
	want      []string // values folded, in order (holes as \x00)
}{
	{"module constant", "BASE = 'https://api.cloudflare.com/client/v4'\ndef f(zid):\n    return BASE + '/zones/' + zid + '/filters'",
		[]string{"https://api.cloudflare.com/client/v4", "https://api.cloudflare.com/client/v4/zones/\x00/filters"}},
	{"function local", "def f(zid):\n    path = '/zones/%s' % zid\n    return path + '/rate_limits'",
		[]string{"/zones/\x00", "/zones/\x00/rate_limits"}},
	{"assigned twice is a hole", "u = '/a'\nu = '/b'\nx = u + '/c'", []string{"/a", "/b", "\x00/c"}},
	{"parameter hides a constant", "url = '/a'\ndef f(url):\n    return url + '/c'", []string{"/a", "\x00/c"}},
	{"other function's local", "def f():\n    u = '/a'\ndef g():\n    return u + '/c'", []string{"/a", "\x00/c"}},
	{"self attribute", "class C:\n    BASE = '/client/v4'\n    def __init__(self):\n        self.zones = self.BASE + '/zones'\n    def f(self, z):\n        return f'{self.zones}/{z}/filters'",
		[]string{"/client/v4", "/client/v4/zones", "/client/v4/zones/\x00/filters"}},
	{"format on a name", "FMT = '/zones/{zone_id}/filters'\nu = FMT.format(zone_id=z)", []string{"/zones/{zone_id}/filters", "/zones/\x00/filters"}},
	{"percent on a name", "FMT = '/zones/%s/filters'\nu = FMT % z", []string{"/zones/%s/filters", "/zones/\x00/filters"}},
	{"join with a name", "B = '/zones'\nu = os.path.join(B, z, 'filters')\nv = '/'.join([B, z])", []string{"/zones", "/zones/\x00/filters", "/zones/\x00"}},
	{"not a string", "B = get()\nu = B + '/x'", []string{"\x00/x"}},
	{"augmented spoils", "u = '/a'\nu += '/b'\nx = u + '/c'", []string{"/a", "/b", "\x00/c"}},
}

func TestSubstitution(t *testing.T) {
	tests := substitutionTests
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range Read([]byte(tt.src)).Strings {
				got = append(got, s.Value)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("source:\n%s\ngot  %q\nwant %q", tt.src, got, tt.want)
			}
		})
	}
}

// clientSource is an API client of the kind sunset check looks for: a base URL built in
// a constructor, used in methods, and SDK calls with nested bodies.
const clientSource = `import CloudFlare
import requests

API = "https://api.cloudflare.com/client/v4"


class Client:
    def __init__(self, token, zone_id):
        self.base = API + "/zones/" + zone_id
        self.headers = {"Authorization": f"Bearer {token}"}

    def filters(self):
        return requests.get(self.base + "/filters", headers=self.headers)

    def rate_limit(self, rid):
        url = "%s/rate_limits/%s" % (self.base, rid)
        return requests.delete(url)


def legacy(cf, zone_id):
    cf.zones.firewall.rules.post(zone_id, data=[{'filter': {'expression': 'ip.src eq 1.2.3.4'}, 'action': 'block'}])
    cf.zones.settings.ssl.patch(zone_id, data={'value': 'full'})
`

func TestClientFile(t *testing.T) {
	f := Read([]byte(clientSource))
	const base = "https://api.cloudflare.com/client/v4"
	const post, patch = "cf.zones.firewall.rules.post", "cf.zones.settings.ssl.patch"
	wantStrs := []str{
		{val: base, line: 4, col: 7, asg: "API", arg: noCall, endL: 4, endC: 45},
		{val: base + "/zones/\x00", line: 9, col: 21, asg: "base", arg: noCall, holes: []string{"zone_id"}, endL: 9, endC: 46},
		{val: "Authorization", line: 10, col: 25, arg: noCall, endL: 10, endC: 40},
		{val: "Bearer \x00", line: 10, col: 42, key: "Authorization", arg: noCall, holes: []string{"token"}, endL: 10, endC: 59},
		{val: base + "/zones/\x00/filters", line: 13, col: 29, call: "requests.get", arg: 0, holes: []string{"zone_id"}, endL: 13, endC: 51},
		{val: base + "/zones/\x00/rate_limits/\x00", line: 16, col: 15, asg: "url", arg: noCall, holes: []string{"zone_id", "rid"}, endL: 16, endC: 53},
		{val: "filter", line: 21, col: 50, call: post, arg: -1, endL: 21, endC: 58},
		{val: "expression", line: 21, col: 61, call: post, arg: -1, endL: 21, endC: 73},
		{val: "ip.src eq 1.2.3.4", line: 21, col: 75, key: "expression", call: post, arg: -1, endL: 21, endC: 94},
		{val: "action", line: 21, col: 97, call: post, arg: -1, endL: 21, endC: 105},
		{val: "block", line: 21, col: 107, key: "action", call: post, arg: -1, endL: 21, endC: 114},
		{val: "value", line: 22, col: 48, call: patch, arg: -1, endL: 22, endC: 55},
		{val: "full", line: 22, col: 57, key: "value", call: patch, arg: -1, endL: 22, endC: 63},
	}
	if got := strsOf(f, true); !reflect.DeepEqual(got, wantStrs) {
		t.Errorf("strings:\n%v\nwant:\n%v", got, wantStrs)
	}
	wantCalls := []call{
		{callee: "requests.get", line: 13, col: 25, endL: 13, endC: 73, idents: []string{"", "headers"}, keys: "headers@13:53/0"},
		{callee: "requests.delete", line: 17, col: 25, endL: 17, endC: 35, idents: []string{"url"}},
		{callee: post, line: 21, col: 29, endL: 21, endC: 116, idents: []string{"zone_id", ""},
			keys: "data@21:43/0 filter@21:50/1 expression@21:61/2 action@21:97/1"},
		{callee: patch, line: 22, col: 27, endL: 22, endC: 64, idents: []string{"zone_id", ""}, keys: "data@22:42/0 value@22:48/1"},
	}
	if got := callsOf(f); !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("calls:\n%+v\nwant:\n%+v", got, wantCalls)
	}
	if want := []string{"CloudFlare", "requests"}; !reflect.DeepEqual(f.Imports, want) {
		t.Errorf("Imports = %q, want %q", f.Imports, want)
	}
	if want := []string{"__init__", "filters", "rate_limit", "legacy"}; !reflect.DeepEqual(f.Decls, want) {
		t.Errorf("Decls = %q, want %q", f.Decls, want)
	}
}
