package js

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// dump writes a File as one line per import, declaration, call and string, so that a test
// states exactly what it expects: positions as line:col (End after a dash), holes as <>.
func dump(f *code.File) []string {
	var out []string
	for _, s := range f.Imports {
		out = append(out, "import "+s)
	}
	for _, s := range f.Decls {
		out = append(out, "decl "+s)
	}
	for _, c := range f.Calls {
		line := fmt.Sprintf("call %s %s", posSpan(c.Pos, c.End), strings.Join(c.Callee, "."))
		if c.New {
			line += " new"
		}
		if len(c.ArgIdents) > 0 {
			line += " args=" + strings.Join(blank(c.ArgIdents), ",")
		}
		if len(c.Keys) > 0 {
			var ks []string
			for _, k := range c.Keys {
				ks = append(ks, fmt.Sprintf("%s@%d:%d/%d", k.Name, k.Pos.Line, k.Pos.Col, k.Depth))
			}
			line += " keys=" + strings.Join(ks, ",")
		}
		out = append(out, line)
	}
	for _, s := range f.Strings {
		line := fmt.Sprintf("str %s %q", posSpan(s.Pos, s.End), strings.ReplaceAll(s.Value, code.HoleString, "<>"))
		if s.Key != "" {
			line += " key=" + s.Key
		}
		if s.Assigned != "" {
			line += " as=" + s.Assigned
		}
		if s.Call >= 0 {
			line += fmt.Sprintf(" call=%s arg=%d", strings.Join(f.Calls[s.Call].Callee, "."), s.Arg)
		}
		if len(s.HoleNames) > 0 {
			line += " holes=" + strings.Join(blank(s.HoleNames), ",")
		}
		out = append(out, line)
	}
	return out
}

func posSpan(a, b code.Pos) string {
	return fmt.Sprintf("%d:%d-%d:%d", a.Line, a.Col, b.Line, b.Col)
}

// blank shows empty names as _.
func blank(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if n == "" {
			out[i] = "_"
		}
	}
	return out
}

type readCase struct {
	name string
	src  string
	want []string
}

func runCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Read([]byte(tc.src))
			if f.Lang != "javascript" {
				t.Errorf("Lang = %q", f.Lang)
			}
			got := dump(f)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			checkFile(t, tc.src, f)
		})
	}
}

// checkFile checks what every File must satisfy: positions inside the file, one hole name
// per hole, call indexes in range, Arg -1 without a call.
func checkFile(t *testing.T, src string, f *code.File) {
	t.Helper()
	lines := strings.Count(src, "\n") + 1
	inside := func(what string, p code.Pos) {
		if p.Line < 1 || p.Col < 1 || p.Line > lines {
			t.Errorf("%s at %d:%d, outside the file's %d lines", what, p.Line, p.Col, lines)
		}
	}
	for _, s := range f.Strings {
		inside("string "+s.Value, s.Pos)
		inside("end of string "+s.Value, s.End)
		if n := strings.Count(s.Value, code.HoleString); n != len(s.HoleNames) {
			t.Errorf("string %q has %d holes and %d hole names", s.Value, n, len(s.HoleNames))
		}
		if !s.Literal() {
			t.Errorf("string %q is only holes", s.Value)
		}
		if s.Call < -1 || s.Call >= len(f.Calls) || s.Call == -1 && s.Arg != -1 {
			t.Errorf("string %q: Call %d, Arg %d", s.Value, s.Call, s.Arg)
		}
	}
	for _, c := range f.Calls {
		inside("call", c.Pos)
		inside("end of call", c.End)
		if len(c.Callee) == 0 {
			t.Errorf("call without a callee at %v", c.Pos)
		}
		for _, k := range c.Keys {
			inside("key "+k.Name, k.Pos)
		}
	}
}

var importsCases = []readCase{
	{"forms", `#!/usr/bin/env node
import x from 'm1';
import * as cloudflare from "@pulumi/cloudflare";
import {a, b as c} from "m2";
import "side-effect";
import type { T } from './types';
import json from "./data.json" with { type: "json" };
export * from "re1";
export * as ns from "re2";
export { q, default as r } from 're3';
const fs = require('fs');
const lazy = await import("dyn");
import path = require("path");
`, []string{
		"import m1", "import @pulumi/cloudflare", "import m2", "import side-effect",
		"import ./types", "import ./data.json", "import re1", "import re2", "import re3",
		"import fs", "import dyn", "import path",
		"call 11:12-11:24 require args=_",
		"call 12:20-12:32 import args=_",
		"call 13:15-13:29 require args=_",
		`str 11:20-11:23 "fs" call=require arg=0`,
		`str 12:27-12:31 "dyn" call=import arg=0`,
		`str 13:23-13:28 "path" call=require arg=0`,
	}},
	{"namespaces", `namespace Acme.Cloud { export const z = 1; }
declare module "cloudflare" { }
module.exports = { x };
`, []string{"import Acme.Cloud", "import cloudflare"}},
}

func TestImports(t *testing.T) { runCases(t, importsCases) }

var declsCases = []readCase{
	{"forms", `function plain(a, b) {}
async function* gen() {}
export default function dflt() {}
const arrow = (x) => x;
const asyncArrow = async x => x;
let expr = function inner() {};
const typed: Handler = async (req: Request): Promise<void> => {};
exports.exported = function () {};
class Client extends Base {
  constructor(opts) { super(opts); }
  async list(zoneId: string): Promise<Rule[]> { return []; }
  static create() {}
  get name() { return 1; }
  #secret() {}
  handler = () => {};
  abstract nobody(): void;
  overload(a: string): void;
}
const obj = { method() {}, key: function () {}, arrowKey: () => 1, async am() {} };
interface I { sig(): void; prop: () => void }
type T = { alias(): void };
declare function ambient(): void;
function overloaded(a: string): void;
`, []string{
		"decl plain", "decl gen", "decl dflt", "decl arrow", "decl asyncArrow", "decl inner",
		"decl expr", "decl typed", "decl exported", "decl constructor", "decl list",
		"decl create", "decl name", "decl #secret", "decl handler", "decl method", "decl key",
		"decl arrowKey", "decl am",
		"call 10:23-10:33 super args=opts",
	}},
}

func TestDecls(t *testing.T) { runCases(t, declsCases) }

var callsCases = []readCase{
	{"member chains", `client.firewall.rules.create({ zone_id: zid, filter: { expression: e } });
client.rateLimits.list(zoneId);
this.http.get(url);
await cf.zones.get();
`, []string{
		"call 1:23-1:73 client.firewall.rules.create args=_ keys=zone_id@1:32/0,filter@1:46/0,expression@1:56/1",
		"call 2:19-2:30 client.rateLimits.list args=zoneId",
		"call 3:11-3:18 this.http.get args=url",
		"call 4:16-4:20 cf.zones.get",
	}},
	{"chained and optional", `a.b().c(x);
client(opts).put(body);
a?.b?.(x);
obj?.list?.[0]?.run();
`, []string{
		"call 1:3-1:5 a.b",
		"call 1:7-1:10 a.b.c args=x",
		"call 2:1-2:12 client args=opts",
		"call 2:14-2:22 client.put args=body",
		"call 3:4-3:9 a.b args=x",
		"call 4:17-4:21 obj.list.run",
	}},
	{"constructors", `new cloudflare.FirewallRule("x", { zoneId, paused: false });
const m = new Map<string, number>();
const d = new Date;
`, []string{
		"call 1:16-1:59 cloudflare.FirewallRule new args=_,_ keys=zoneId@1:36/0,paused@1:44/0",
		"call 2:15-2:35 Map new",
		"call 3:15-3:18 Date new",
		`str 1:29-1:31 "x" call=cloudflare.FirewallRule arg=0`,
	}},
	{"http clients", `axios.post(url, body);
fetch(url, {method: 'POST', headers: {'X-Auth-Key': key}});
`, []string{
		"call 1:7-1:21 axios.post args=url,body",
		"call 2:1-2:58 fetch args=url,_ keys=method@2:13/0,headers@2:29/0,X-Auth-Key@2:39/1",
		`str 2:21-2:26 "POST" key=method call=fetch arg=-1`,
		`str 2:39-2:50 "X-Auth-Key" call=fetch arg=-1`,
	}},
	{"type arguments", `const r = foo<T>(x);
const s = api.get<Array<Rule>>(u);
const lt = a < b;
const both = a < b && c > (d);
`, []string{
		"call 1:11-1:19 foo args=x",
		"call 2:15-2:33 api.get args=u",
	}},
	{"tagged template and decorators", "const q = gql`query { zones }`;\n@Injectable()\nclass S { @Get('/zones') list() {} }\n", []string{
		"decl list",
		"call 1:11-1:30 gql",
		"call 2:2-2:13 Injectable",
		"call 3:12-3:24 Get args=_",
		`str 1:14-1:30 "query { zones }" call=gql arg=0`,
		`str 3:16-3:23 "/zones" call=Get arg=0`,
	}},
}

func TestCalls(t *testing.T) { runCases(t, callsCases) }

var foldingCases = []readCase{
	{"concatenation", `const url = "zones/" + zoneId + "/filters";
fetch(base + "/zones/" + this.zoneId + "/rate_limits?page=" + 2 + q());
const sum = a + b + "/x";
`, []string{
		"call 2:1-2:70 fetch args=_",
		"call 2:67-2:69 q",
		`str 1:13-1:42 "zones/<>/filters" as=url holes=zoneId`,
		`str 2:7-2:69 "<>/zones/<>/rate_limits?page=2<>" call=fetch arg=0 holes=base,zoneId,_`,
		`str 3:13-3:24 "<>/x" as=sum holes=_`,
	}},
	{"templates", "const a = `/zones/${cfg.zone.zoneId}/dns_records/${id}`;\nconst b = `a${`b${x}c`}d`;\nconst c = `${a}${b}`;\n", []string{
		`str 1:11-1:55 "/zones/<>/dns_records/<>" as=a holes=zoneId,id`,
		`str 2:11-2:25 "ab<>cd" as=b holes=x`,
	}},
	{"joins", `const a = "/accounts/".concat(id, "/tunnels");
const b = path.join("/zones/", zoneId, "/settings/");
const c = path.posix.join(base, "organizations", orgId);
const d = new URL("zones/" + id + "/filters", "https://api.example.com/client/v4/");
const e = ["zones", id, "rate_limits"].join("/");
const f = [a, b].join(sep);
`, []string{
		"call 1:24-1:45 concat args=id,_",
		"call 2:16-2:52 path.join args=_,zoneId,_",
		"call 3:22-3:55 path.posix.join args=base,_,orgId",
		"call 4:15-4:83 URL new args=_,_",
		"call 5:40-5:48 join args=_",
		"call 6:18-6:26 join args=sep",
		`str 1:11-1:44 "/accounts/<>/tunnels" as=a holes=id`,
		`str 2:21-2:51 "/zones/<>/settings/" as=b holes=zoneId`,
		`str 3:27-3:54 "<>/organizations/<>" as=c holes=base,orgId`,
		`str 4:19-4:82 "https://api.example.com/client/v4/zones/<>/filters" as=d holes=id`,
		`str 5:11-5:38 "zones/<>/rate_limits" as=e holes=id`,
	}},
	{"format calls", `const a = util.format("/zones/%s/firewall/rules/%d", zone.id, 5);
const b = sprintf("%(zone)s/%2$s/%1$s 100%%", x, "settings");
log(format("%s/waf", "/zones/" + z));
`, []string{
		"call 1:16-1:64 util.format args=_,_,_",
		"call 2:11-2:60 sprintf args=_,x,_",
		"call 3:1-3:36 log args=_",
		"call 3:5-3:35 format args=_,_",
		`str 1:23-1:51 "/zones/<>/firewall/rules/5" as=a holes=id`,
		`str 2:19-2:44 "<>/settings/<> 100%" as=b holes=zone,x`,
		`str 3:12-3:19 "/zones/<>/waf" call=log arg=0 holes=z`,
	}},
	{"constants", `const CLOUDFLARE_V4_URI = 'https://api.example.com/client/v4';
const ZONES = CLOUDFLARE_V4_URI + "/zones";
fetch(` + "`${CLOUDFLARE_V4_URI}/zones/${id}/dns_records`" + `);
get(ZONES + "/" + zid + "/filters");
const TWICE = "a";
const TWICE = "b";
use(TWICE + "/x");
`, []string{
		"call 3:1-3:53 fetch args=_",
		"call 4:1-4:35 get args=_",
		"call 7:1-7:17 use args=_",
		`str 1:27-1:61 "https://api.example.com/client/v4" as=CLOUDFLARE_V4_URI`,
		`str 2:15-2:42 "https://api.example.com/client/v4/zones" as=ZONES`,
		`str 3:7-3:52 "https://api.example.com/client/v4/zones/<>/dns_records" call=fetch arg=0 holes=id`,
		`str 4:5-4:34 "https://api.example.com/client/v4/zones/<>/filters" call=get arg=0 holes=zid`,
		`str 5:15-5:17 "a" as=TWICE`,
		`str 6:15-6:17 "b" as=TWICE`,
		`str 7:5-7:16 "<>/x" call=use arg=0 holes=TWICE`,
	}},
	{"keys and assignments", `const cfg = { "expression": "ip.src eq 1.1.1.1", url: base + "/x", [k]: "v" };
let x = "a", y;
this.url = "b";
x = "c";
obj.path += "/d";
const u = process.env.URL || "https://default";
const m = cond ? "GET" : "POST";
function f(endpoint = "/zones") {}
`, []string{
		"decl f",
		`str 1:15-1:26 "expression"`,
		`str 1:29-1:47 "ip.src eq 1.1.1.1" key=expression`,
		`str 1:55-1:65 "<>/x" key=url holes=base`,
		`str 1:73-1:75 "v"`,
		`str 2:9-2:11 "a" as=x`,
		`str 3:12-3:14 "b" as=url`,
		`str 4:5-4:7 "c" as=x`,
		`str 5:13-5:16 "/d" as=path`,
		`str 6:30-6:46 "https://default" as=u`,
		`str 7:18-7:22 "GET" as=m`,
		`str 7:26-7:31 "POST" as=m`,
		`str 8:23-8:30 "/zones" as=endpoint`,
	}},
	{"escapes", `const a = "a\nb\u0041\x41\u{1F600}\0z", b = 'it\'s', c = "line\
next";
const empty = "";
const list = ["/zones/", base + "/filters"];
`, []string{
		"str 1:11-1:38 \"a\\nbAA\U0001F600\uFFFDz\" as=a",
		`str 1:45-1:51 "it's" as=b`,
		`str 1:58-2:5 "linenext" as=c`,
		`str 4:15-4:23 "/zones/" as=list`,
		`str 4:26-4:42 "<>/filters" as=list holes=base`,
	}},
}

func TestFolding(t *testing.T) { runCases(t, foldingCases) }

var tokenizerCases = []readCase{
	{"regex with quotes and slashes", `const re = /["'\/]+[/"']x/gi; const s = "after";
if (/^\/zones\/[^/]+$/.test(p)) go('ok');
`, []string{
		"call 2:24-2:30 test args=p",
		"call 2:33-2:40 go args=_",
		`str 1:41-1:47 "after" as=s`,
		`str 2:36-2:39 "ok" call=go arg=0`,
	}},
	{"division before a string", `const half = total / 2 / "3".length;
x = a / "/zones" + b / c;
const y = (a) / 2 + "px", z = arr[0] / "4";
`, []string{
		`str 1:26-1:28 "3"`,
		`str 2:9-2:16 "/zones"`,
		`str 3:12-3:24 "<>px" as=y holes=_`,
		`str 3:40-3:42 "4"`,
	}},
	{"template inside template", "const u = `${base}/zones/${`${zone.id}`}/rules/${`r-${n}`}`;\nconst v = `${{a: 1}.a}x${f(`y`)}`;\n", []string{
		"call 2:26-2:31 f args=_",
		`str 1:11-1:59 "<>/zones/<>/rules/r-<>" as=u holes=base,id,n`,
		`str 2:11-2:33 "<>x<>" as=v holes=a,_`,
		"str 2:28-2:30 \"y\" call=f arg=0",
	}},
	{"comments", `// fetch("/zones/x/filters")
/* "not a string" */ const a = "real"; /* unterminated "x"`, []string{
		`str 2:32-2:37 "real" as=a`,
	}},
	{"columns in characters", `const é = "ü"; f("/zones", 'ok') // ☃
g("x")`, []string{
		"call 1:16-1:32 f args=_,_",
		"call 2:1-2:6 g args=_",
		`str 1:11-1:13 "ü" as=é`,
		`str 1:18-1:25 "/zones" call=f arg=0`,
		`str 1:28-1:31 "ok" call=f arg=1`,
		`str 2:3-2:5 "x" call=g arg=0`,
	}},
	{"unterminated", "const a = \"open\nconst b = `tmpl ${x", []string{
		`str 1:11-1:15 "open" as=a`,
		`str 2:11-2:19 "tmpl <>" as=b holes=x`,
	}},
	{"numbers, identifiers, optional chaining", `const $a_1 = 0x1F + 1_000 + .5e-3 + 10n;
const r = c?.5:1, q = $a_1?.b_$?.("k");
`, []string{
		"call 2:29-2:38 $a_1.b_$ args=_",
		`str 2:35-2:37 "k" call=$a_1.b_$ arg=0`,
	}},
}

func TestTokenizer(t *testing.T) { runCases(t, tokenizerCases) }

var typeScriptCases = []readCase{
	{"annotations, generics, casts", `export async function listRules<T extends Rule = Rule>(zoneId: string, opts?: Opts<T>): Promise<T[]> {
  const res = await this.http.get<{ result: T[] }>(` + "`/zones/${zoneId}/firewall/rules`" + `, opts as RequestInit);
  const id = (res.result as any)[0]!.id as string;
  return <T[]>res.result;
}
const n = <const T,>(x: T): T => x;
let v: Map<string, Array<number>> = new Map(), w = a as unknown as B;
type Method = 'GET' | "POST";
interface Api { get(path: string): Promise<unknown>; }
enum Verb { Delete = "DELETE" }
class A<T> extends B<T> implements C<T>, D {
  private readonly base: string = "https://api";
  declare x?: number;
  constructor(private readonly http: Http, public zone = "z") { super(); }
}
`, []string{
		"decl listRules", "decl n", "decl constructor",
		"call 2:31-2:106 this.http.get args=_,opts",
		"call 7:41-7:45 Map new",
		"call 14:65-14:71 super",
		`str 2:52-2:84 "/zones/<>/firewall/rules" call=this.http.get arg=0 holes=zoneId`,
		`str 10:22-10:29 "DELETE" as=Delete`,
		`str 12:35-12:47 "https://api" as=base`,
		`str 14:58-14:60 "z" as=zone`,
	}},
	{"pulumi", `import * as cloudflare from "@pulumi/cloudflare";
export const rs = new cloudflare.Ruleset("x", {
  zoneId: zone.id,
  rules: [{
    expression: "(ip.geoip.country in {\"CN\"})",
    action: "block",
  }],
});
`, []string{
		"import @pulumi/cloudflare",
		"call 2:34-8:2 cloudflare.Ruleset new args=_,_ keys=zoneId@3:3/0,rules@4:3/0,expression@5:5/1,action@6:5/1",
		`str 2:42-2:44 "x" call=cloudflare.Ruleset arg=0`,
		`str 5:17-5:48 "(ip.geoip.country in {\"CN\"})" key=expression call=cloudflare.Ruleset arg=-1`,
		`str 6:13-6:19 "block" key=action call=cloudflare.Ruleset arg=-1`,
	}},
	{"jsx", `const App = () => <div className="x" onClick={() => fetch("/api/zones")}>{items.map(i => <Li key={i} />)} Don't</div>;
post("/after");
`, []string{
		"decl App",
		"call 1:53-1:71 fetch args=_",
		"call 1:81-1:104 items.map args=_",
		"call 2:1-2:14 post args=_",
		`str 1:34-1:36 "x" key=className`,
		`str 1:59-1:70 "/api/zones" call=fetch arg=0`,
		`str 2:6-2:13 "/after" call=post arg=0`,
	}},
}

func TestTypeScript(t *testing.T) { runCases(t, typeScriptCases) }

// allCases are every fixture above, the fuzz test's seeds.
var allCases = [][]readCase{importsCases, declsCases, callsCases, foldingCases, tokenizerCases, typeScriptCases}
