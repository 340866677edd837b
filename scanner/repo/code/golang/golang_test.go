package golang

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// renderStr writes a Str on one line: line:col-line:col "value" and whatever it is given
// to, holes as \x00 (%q), call by its callee.
func renderStr(f *code.File, s code.Str) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d-%d:%d %q", s.Pos.Line, s.Pos.Col, s.End.Line, s.End.Col, s.Value)
	if s.Key != "" {
		fmt.Fprintf(&b, " key=%s", s.Key)
	}
	if s.Assigned != "" {
		fmt.Fprintf(&b, " as=%s", s.Assigned)
	}
	if s.Call >= 0 {
		fmt.Fprintf(&b, " call=%s/%d", strings.Join(f.Calls[s.Call].Callee, "."), s.Arg)
	} else if s.Arg != -1 {
		fmt.Fprintf(&b, " arg=%d without call", s.Arg)
	}
	if len(s.HoleNames) > 0 {
		fmt.Fprintf(&b, " holes=%s", strings.Join(s.HoleNames, ","))
	}
	return b.String()
}

// renderCall writes a Call on one line: line:col-line:col a.b.C(args) keys=K@depth,...
func renderCall(c code.Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d-%d:%d %s(%s)", c.Pos.Line, c.Pos.Col, c.End.Line, c.End.Col,
		strings.Join(c.Callee, "."), strings.Join(c.ArgIdents, ","))
	if c.New {
		b.WriteString(" new")
	}
	for i, k := range c.Keys {
		sep := ","
		if i == 0 {
			sep = " keys="
		}
		fmt.Fprintf(&b, "%s%s@%d:%d/%d", sep, k.Name, k.Pos.Line, k.Pos.Col, k.Depth)
	}
	return b.String()
}

func render(f *code.File) (strs, calls []string) {
	for _, s := range f.Strings {
		strs = append(strs, renderStr(f, s))
	}
	for _, c := range f.Calls {
		calls = append(calls, renderCall(c))
	}
	return strs, calls
}

type readCase struct {
	name    string
	src     string
	imports []string // nil: not checked
	decls   []string // nil: not checked
	strs    []string // exact, in order
	calls   []string // nil: not checked; exact otherwise
}

func runCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Read([]byte(tc.src))
			if f.Lang != "go" {
				t.Errorf("Lang = %q", f.Lang)
			}
			strs, calls := render(f)
			if !slices.Equal(strs, tc.strs) {
				t.Errorf("strings:\n got %s\nwant %s", strings.Join(strs, "\n     "), strings.Join(tc.strs, "\n     "))
			}
			if tc.calls != nil && !slices.Equal(calls, tc.calls) {
				t.Errorf("calls:\n got %s\nwant %s", strings.Join(calls, "\n     "), strings.Join(tc.calls, "\n     "))
			}
			if tc.imports != nil && !slices.Equal(f.Imports, tc.imports) {
				t.Errorf("imports = %q, want %q", f.Imports, tc.imports)
			}
			if tc.decls != nil && !slices.Equal(f.Decls, tc.decls) {
				t.Errorf("decls = %q, want %q", f.Decls, tc.decls)
			}
		})
	}
}

var sdkCases = []readCase{{
	name: "cloudflare-go calls",
	src: `package rl

import (
	"context"

	cf "github.com/cloudflare/cloudflare-go"
)

func (c *Client) Get(ctx context.Context, p Params, id string) error {
	_, err := c.client.RateLimit(ctx, p.ZoneID, id)
	return err
}

func list(api *cf.API, zoneID string) {
	api.Filters(zoneID, cf.PaginationOptions{PerPage: 50})
	api.CreateFirewallRules(ctx, zoneID, []cf.FirewallRule{{Action: "block", Filter: cf.Filter{Expression: "ip.src eq 1.1.1.1"}}})
}
`,
	imports: []string{"rl", "context", "github.com/cloudflare/cloudflare-go"},
	decls:   []string{"Get", "list"},
	calls: []string{
		"10:21-10:48 c.client.RateLimit(ctx,ZoneID,id)",
		"15:6-15:55 api.Filters(zoneID,) keys=PerPage@15:43/0",
		"16:6-16:127 api.CreateFirewallRules(ctx,zoneID,) keys=Action@16:58/0,Filter@16:75/0,Expression@16:93/1",
	},
	strs: []string{
		`16:66-16:72 "block" key=Action call=api.CreateFirewallRules/-1`,
		`16:105-16:123 "ip.src eq 1.1.1.1" key=Expression call=api.CreateFirewallRules/-1`,
	},
}, {
	name: "pulumi resource",
	src: `package main

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		_, err := cloudflare.NewFirewallRule(ctx, "block-bots", &cloudflare.FirewallRuleArgs{
			ZoneId: pulumi.String(zoneID),
			Filter: &cloudflare.FilterArgs{Expression: pulumi.String("(cf.threat_score gt 14)")},
			Action: pulumi.String("block"),
		})
		return err
	})
}
`,
	decls: []string{"main"},
	calls: []string{
		"4:9-11:3 pulumi.Run()",
		"5:24-9:4 cloudflare.NewFirewallRule(ctx,,) keys=ZoneId@6:4/0,Filter@7:4/0,Expression@7:35/1,Action@8:4/0",
		"6:19-6:32 pulumi.String(zoneID)",
		"7:54-7:86 pulumi.String()",
		"8:19-8:33 pulumi.String()",
	},
	strs: []string{
		`5:45-5:56 "block-bots" call=cloudflare.NewFirewallRule/1`,
		`7:61-7:85 "(cf.threat_score gt 14)" key=Expression call=pulumi.String/0`,
		`8:26-8:32 "block" key=Action call=pulumi.String/0`,
	},
}, {
	name: "own method called, interface methods not declared",
	src: `package filter

type API interface {
	DeleteFilter(ctx context.Context, zoneID, id string) error
	Filters(ctx context.Context, zoneID string) ([]Filter, error)
}

type X struct{ api API }

func (c *X) Delete(ctx context.Context) error {
	return c.api.DeleteFilter(ctx, c.zone, c.id)
}

func run(x *X) { x.Delete(context.Background()) }
`,
	decls: []string{"Delete", "run"},
	calls: []string{
		"11:15-11:45 c.api.DeleteFilter(ctx,zone,id)",
		"14:20-14:47 x.Delete()",
		"14:35-14:46 context.Background()",
	},
}, {
	name: "call chains",
	src: `package p

func f() {
	x.Foo().Bar(a)
	clients[i].Delete()
	Get[T](&req)
	(*c).Do()
	client(opts).Put(url)
	func() {}()
}
`,
	calls: []string{
		"4:10-4:15 x.Foo.Bar(a)",
		"4:4-4:8 x.Foo()",
		"5:13-5:20 clients.Delete()",
		"6:2-6:13 Get(req)",
		"7:7-7:10 c.Do()",
		"8:15-8:22 client.Put(url)",
		"8:2-8:13 client(opts)",
		"9:2-9:12 ()",
	},
}}

func TestReadSDKCalls(t *testing.T) { runCases(t, sdkCases) }

var valueCases = []readCase{{
	name: "const block, package var and substitution",
	src: `package zones

const (
	base      = "https://api.cloudflare.com/client/v4"
	cfsBrotli = "brotli"
	filters   = "/filters"
	limit     = 50
)

var zonesPath = base + "/zones/"

func url(id string) string {
	return zonesPath + id + filters
}
`,
	strs: []string{
		`4:14-4:51 "https://api.cloudflare.com/client/v4" as=base`,
		`5:14-5:21 "brotli" as=cfsBrotli`,
		`6:14-6:23 "/filters" as=filters`,
		`10:17-10:32 "https://api.cloudflare.com/client/v4/zones/" as=zonesPath`,
		"13:9-13:32 \"https://api.cloudflare.com/client/v4/zones/\\x00/filters\" holes=id",
	},
}, {
	name: "local variables: once substituted, twice a hole",
	src: `package p

var shared = "/shared"

func f(id string) {
	prefix := "/zones/"
	u := prefix + id
	again := "/a"
	again = "/b"
	v := again + "/c"
	w := shared + "/x"
}

func g() { shared = "/changed" }

func h(later string) {
	a := early + "/x"
	b := later + "/y"
}

const early, later = "/early", "/later"
`,
	strs: []string{
		`3:14-3:22 "/shared" as=shared`,
		`6:12-6:20 "/zones/" as=prefix`,
		"7:7-7:17 \"/zones/\\x00\" as=u holes=id",
		`8:11-8:14 "/a" as=again`,
		`9:10-9:13 "/b" as=again`,
		"10:7-10:18 \"\\x00/c\" as=v holes=again",
		"11:7-11:19 \"\\x00/x\" as=w holes=shared",
		`14:21-14:30 "/changed" as=shared`,
		`17:7-17:18 "/early/x" as=a`,
		"18:7-18:18 \"\\x00/y\" as=b holes=later",
		`21:22-21:29 "/early" as=early`,
		`21:32-21:39 "/later" as=later`,
	},
}, {
	name: "concatenation is one value at its first operand",
	src: `package p

func f(zoneID string) {
	req, err := http.NewRequest("DELETE", api.Base+"/zones/"+zoneID+"/filters?id="+strings.ToLower("AB"), nil)
	req.URL = ("a" + "b")
	n := i + 1
}
`,
	calls: []string{
		"4:19-4:107 http.NewRequest(,,nil)",
		"4:89-4:101 strings.ToLower()",
	},
	strs: []string{
		`4:30-4:37 "DELETE" call=http.NewRequest/0`,
		"4:40-4:101 \"\\x00/zones/\\x00/filters?id=\\x00\" call=http.NewRequest/1 holes=Base,zoneID,",
		`4:97-4:100 "AB" call=strings.ToLower/0`,
		`5:13-5:21 "ab" as=URL`,
	},
}, {
	name: "formats",
	src: `package p

const tmpl = "/zones/%s/filters"

func f(zoneID, name string, p P) error {
	a := fmt.Sprintf("/zones/%s/firewall/rules/%[1]s/%d%%", zoneID, 5)
	b := fmt.Sprintf("%s/zones/%s", base(), zoneID)
	c := fmt.Sprintf(tmpl, zoneID)
	log.Printf("deleting %s", zoneID)
	d := fmt.Sprintf("%q and %-5v, %+v %*d %.2f %x 100%", name, "lit", p.ZoneID, 3, n, 1.5, id)
	return errors.Wrapf(err, "zone %s: "+"rate limit", zoneID)
}
`,
	strs: []string{
		`3:14-3:32 "/zones/%s/filters" as=tmpl`,
		"6:19-6:67 \"/zones/\\x00/firewall/rules/\\x00/5%\" as=a holes=zoneID,zoneID",
		"7:19-7:48 \"\\x00/zones/\\x00\" as=b holes=,zoneID",
		"8:19-8:31 \"/zones/\\x00/filters\" as=c holes=zoneID",
		"9:13-9:34 \"deleting \\x00\" call=log.Printf/0 holes=zoneID",
		"10:19-10:92 \"\\x00 and lit, \\x00 \\x00 \\x00 \\x00 100%\" as=d holes=name,ZoneID,n,,id",
		"11:27-11:59 \"zone \\x00: rate limit\" holes=zoneID",
	},
	calls: []string{
		"6:11-6:67 fmt.Sprintf(,zoneID,)",
		"7:11-7:48 fmt.Sprintf(,,zoneID)",
		"7:34-7:39 base()",
		"8:11-8:31 fmt.Sprintf(tmpl,zoneID)",
		"9:6-9:34 log.Printf(,zoneID)",
		"10:11-10:92 fmt.Sprintf(,name,,ZoneID,,n,,id)",
		"11:16-11:59 errors.Wrapf(err,,zoneID)",
	},
}, {
	name: "a format given to a call, and inside a concatenation",
	src: `package p

func f(id string) {
	req, _ := http.NewRequest("GET", fmt.Sprintf("/zones/%s/rate_limits", id), nil)
	u := "https://api" + fmt.Sprintf("/zones/%v", id) + "/filters"
}
`,
	strs: []string{
		`4:28-4:32 "GET" call=http.NewRequest/0`,
		"4:47-4:74 \"/zones/\\x00/rate_limits\" call=http.NewRequest/1 holes=id",
		"5:7-5:63 \"https://api/zones/\\x00/filters\" as=u holes=id",
	},
	calls: []string{
		"4:17-4:80 http.NewRequest(,,nil)",
		"4:39-4:74 fmt.Sprintf(,id)",
		"5:27-5:50 fmt.Sprintf(,id)",
	},
}, {
	name: "format argument not used as text is a value of its own",
	src: `package p

func f() {
	s := fmt.Sprintf("%q", "quoted")
}
`,
	strs: []string{
		`4:25-4:32 "quoted" call=fmt.Sprintf/1`,
	},
}, {
	name: "path joins",
	src: `package p

const base = "https://api.cloudflare.com/client/v4/"

func f(zoneID, dir string) {
	a := path.Join("/zones", zoneID, "/firewall/", "rules")
	u, err := url.JoinPath(base, "/zones", zoneID, "rate_limits")
	b := strings.Join([]string{"zones", zoneID, "filters"}, "/")
	c := filepath.Join(dir, "", "x")
	d := strings.Join(parts, "/")
}
`,
	strs: []string{
		`3:14-3:52 "https://api.cloudflare.com/client/v4/" as=base`,
		"6:17-6:56 \"/zones/\\x00/firewall/rules\" as=a holes=zoneID",
		"7:25-7:62 \"https://api.cloudflare.com/client/v4/zones/\\x00/rate_limits\" as=u holes=zoneID",
		"8:20-8:61 \"zones/\\x00/filters\" as=b holes=zoneID",
		"9:21-9:33 \"\\x00/x\" as=c holes=dir",
		`10:27-10:29 "/" call=strings.Join/1`,
	},
}, {
	name: "struct and map literal keys",
	src: `package p

func f(id string) {
	req := Request{Path: "/zones/" + id + "/settings", Method: "PATCH"}
	body := map[string]any{"expression": "ip.geoip.country eq \"CN\"", "paused": false}
	api.Do(ctx, &Request{Path: "/x", Nested: Inner{Deep: "y"}, List: []string{"z"}})
}
`,
	strs: []string{
		"4:23-4:50 \"/zones/\\x00/settings\" key=Path holes=id",
		`4:61-4:67 "PATCH" key=Method`,
		`5:25-5:36 "expression"`,
		`5:39-5:66 "ip.geoip.country eq \"CN\"" key=expression`,
		`5:69-5:76 "paused"`,
		`6:29-6:32 "/x" key=Path call=api.Do/-1`,
		`6:55-6:57 "y" key=Deep call=api.Do/-1`,
		`6:76-6:78 "z" key=List call=api.Do/-1`,
	},
	calls: []string{"6:6-6:81 api.Do(ctx,) keys=Path@6:23/0,Nested@6:35/0,Deep@6:49/1,List@6:61/0"},
}, {
	name: "raw strings with newlines start at their line",
	src:  "package p\n\nvar q = `\nquery {\r\n  zones\n}`\n\nfunc f() { g(`a`, \"b\\n\") }\n",
	strs: []string{
		"3:9-6:2 \"\\nquery {\\n  zones\\n}\" as=q",
		`8:14-8:16 "a" call=g/0`,
		`8:19-8:23 "b\n" call=g/1`,
	},
}, {
	name: "columns count characters",
	src:  "package p\n\nfunc f() { x := \"héllo→\" + y; api.Filters(\"é\") }\n",
	strs: []string{
		"3:17-3:28 \"héllo→\\x00\" as=x holes=y",
		`3:43-3:45 "é" call=api.Filters/0`,
	},
	calls: []string{"3:35-3:46 api.Filters()"},
}, {
	name: "tags and import paths are not values",
	src:  "package p\n\nimport \"net/http\"\n\ntype T struct {\n\tA string `json:\"a\"`\n}\n",
	strs: nil,
}, {
	name: "partial file keeps what came before the error",
	src: `package p

func f() {
	api.DeleteFirewallRule(ctx, zoneID, "abc")
	x :=
}

func g( {
	api.Filters(zoneID, "after")
}
`,
	decls: []string{"f"},
	calls: []string{"4:6-4:43 api.DeleteFirewallRule(ctx,zoneID,)"},
	strs:  []string{`4:38-4:42 "abc" call=api.DeleteFirewallRule/2`},
}, {
	name: "no package clause",
	src:  `api.Filters("x")`,
	strs: nil, calls: []string{}, decls: []string{}, imports: []string{},
}}

func TestReadValues(t *testing.T) { runCases(t, valueCases) }

func TestFuncsSpanTheirBodies(t *testing.T) {
	src := "package p\n\nfunc (c *impl) Filter(id string) error {\n\treturn c.cf.Filter(id)\n}\n\nfunc Filter(c Client) {\n\tc.Filter(\"x\")\n}\n"
	f := Read([]byte(src))
	if len(f.Funcs) != 2 || !f.Funcs[0].Method || f.Funcs[1].Method || f.Funcs[0].Pos.Line != 3 || f.Funcs[0].End.Line != 5 || f.Funcs[1].End.Line != 9 {
		t.Fatalf("%+v", f.Funcs)
	}
	for _, c := range f.Calls {
		if fn := f.Enclosing(c.Pos); fn == nil || fn.Pos.Line != map[int]int{4: 3, 8: 7}[c.Pos.Line] {
			t.Errorf("call at %d: enclosed by %+v", c.Pos.Line, fn)
		}
	}
}
