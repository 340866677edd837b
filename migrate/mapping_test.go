package migrate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

func TestNearest(t *testing.T) {
	ent := inventory.RateLimitRulesFor("enterprise")
	for _, c := range []struct{ v, want int }{
		{900, 600}, {3000, 3600}, {60, 60}, {1, 10}, {90, 120}, {86400, 3600}, {35, 60},
	} {
		if got := nearest(c.v, ent.Periods); got != c.want {
			t.Errorf("nearest(%d) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := nearest(3000, ent.Timeouts); got != 3600 {
		t.Errorf("timeout 3000 -> %d", got)
	}
	if got := nearest(50000, ent.Timeouts); got != 86400 {
		t.Errorf("timeout 50000 -> %d", got)
	}
	// Within a plan's ceiling: Pro counts over at most a minute, Free over 10 s only.
	if got := nearest(900, inventory.RateLimitRulesFor("pro").Periods); got != 60 {
		t.Errorf("pro period 900 -> %d", got)
	}
	if got := nearest(900, inventory.RateLimitRulesFor("free").Periods); got != 10 {
		t.Errorf("free period 900 -> %d", got)
	}
}

// TestURLCondition: patterns read as the support article 'Why doesn't my Rate Limiting rule
// match a request?' documents the old matcher, with wildcard for host and path.
func TestURLCondition(t *testing.T) {
	const home = ` and http.request.uri.path wildcard "/"`
	for _, c := range []struct{ in, want, never string }{
		{in: "", want: ""},
		{in: "*", want: ""},
		// A bare host is the homepage, as host/ is.
		{in: "example.com", want: `http.host wildcard "example.com"` + home},
		{in: "example.com/", want: `http.host wildcard "example.com"` + home},
		{in: "Example.COM", want: `http.host wildcard "example.com"` + home},
		// A trailing slash counts; path* is the path and everything under it.
		{in: "example.com/path", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/path"`},
		{in: "example.com/path/", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/path/"`},
		{in: "example.com/path*", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/path*"`},
		{in: "example.com/*", want: `http.host wildcard "example.com"`},
		{in: "api.example.com/OAuth/Token", want: `http.host wildcard "api.example.com" and http.request.uri.path wildcard "/OAuth/Token"`},
		{in: "*.example.org/path*", want: `http.host wildcard "*.example.org" and http.request.uri.path wildcard "/path*"`},
		{in: "*/wp-login.php*", want: `http.request.uri.path wildcard "/wp-login.php*"`},
		// A host with a * and no path: the * may span into the path (derived).
		{in: "example.com*", want: `http.host wildcard "example.com*"`},
		{in: "*.example.org", want: `http.host wildcard "*.example.org"`},
		// A scheme, a query string or an anchor: never matched; read without them.
		{in: "https://example.com/*", want: `http.host wildcard "example.com"`, never: "included a scheme"},
		{in: "HTTP://example.com", want: `http.host wildcard "example.com"` + home, never: "included a scheme"},
		{in: "example.com/path?foo=bar", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/path"`, never: "included a query string"},
		{in: "example.com/path#section", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/path"`, never: "included an anchor"},
		{in: "https://example.com/a?b=1", want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/a"`, never: "included a scheme and a query string"},
		// Quotes are quoted; a backslash is a literal one, not a wildcard escape.
		{in: `example.com/a"b\c`, want: `http.host wildcard "example.com" and http.request.uri.path wildcard "/a\"b\\\\c"`},
	} {
		got, never, _ := urlCondition(c.in)
		if got != c.want || never != c.never {
			t.Errorf("urlCondition(%q) = %s, never %q; want %s, never %q", c.in, got, never, c.want, c.never)
		}
		if got != "" {
			if _, err := expr.Parse(got); err != nil {
				t.Errorf("urlCondition(%q) does not parse: %v", c.in, err)
			}
		}
	}
}

// TestRateLimitURLNeverMatched: a rate limit whose url has a scheme counted nothing: its rule
// is created disabled, high risk, saying why; a bypass url with a query exempted nothing and
// is left out.
func TestRateLimitURLNeverMatched(t *testing.T) {
	rl := inventory.RateLimit{ID: "s", Threshold: 5, Period: 60,
		Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "https://example.com/login*"}},
		Bypass: []inventory.RateLimitBypass{{Name: "url", Value: "example.com/login?ok=1"}, {Name: "url", Value: "example.com/login/ok"}},
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 60}}
	tr := translateRateLimit(rl, "enterprise")
	want := `http.host wildcard "example.com" and http.request.uri.path wildcard "/login*" and not (http.host wildcard "example.com" and http.request.uri.path wildcard "/login/ok")`
	if tr.rule.Expression != want || tr.rule.Enabled == nil || *tr.rule.Enabled || tr.risk != RiskHigh || len(tr.blocked) > 0 {
		t.Fatalf("rule %+v, risk %s, blocked %v", tr.rule, tr.risk, tr.blocked)
	}
	changes := strings.Join(tr.changes, " | ")
	for _, w := range []string{"included a scheme: the old rate limit never matched a request; the rule is created disabled", `bypass url "example.com/login?ok=1" included a query string`, "1 bypass url -> and not"} {
		if !strings.Contains(changes, w) {
			t.Errorf("changes lack %q: %s", w, changes)
		}
	}
	rl.Match.Request.URL = "example.com/login*"
	if ok := translateRateLimit(rl, "enterprise"); !*ok.rule.Enabled || ok.risk != RiskMedium {
		t.Fatalf("a url that matched: enabled %t, risk %s", *ok.rule.Enabled, ok.risk)
	}
}

// TestWAFOverrideURLConditions: WAF override urls keep a scheme or query dropped with a note
// (the article is about rate limiting), with the wildcard and homepage reading.
func TestWAFOverrideURLConditions(t *testing.T) {
	conds, notes := urlConditions([]string{"https://example.com/admin/*", "example.com", "*"})
	want := []string{`http.host wildcard "example.com" and http.request.uri.path wildcard "/admin/*"`, `http.host wildcard "example.com" and http.request.uri.path wildcard "/"`}
	if !slices.Equal(conds, want) {
		t.Fatalf("conds %q, want %q", conds, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "included a scheme: read without it") || !strings.Contains(notes[1], "the homepage only") {
		t.Fatalf("notes %q", notes)
	}
}

func TestTranslateRateLimit(t *testing.T) {
	rl := inventory.RateLimit{
		ID: "r1", Description: "login",
		Match: inventory.RateLimitMatch{
			Request:  &inventory.RateLimitRequest{Methods: []string{"POST", "GET"}, Schemes: []string{"HTTPS"}, URL: "*.example.org/login*"},
			Response: &inventory.RateLimitResponse{Status: []int{403, 401}, OriginTraffic: boolPtr(true)},
			Headers:  []inventory.HeaderMatch{{Name: "Cf-Cache-Status", Op: "ne", Value: "HIT"}},
		},
		Bypass:    []inventory.RateLimitBypass{{Name: "url", Value: "a.example.org/login/ok"}},
		Threshold: 60, Period: 900,
		Action:    inventory.RateLimitAction{Mode: "ban", Timeout: 3000, Response: &inventory.RateLimitResponseBody{ContentType: "text/xml", Body: "<error/>"}},
		Correlate: &inventory.RateLimitCorrelate{By: "nat"},
	}
	tr := translateRateLimit(rl, "enterprise")
	if len(tr.blocked) > 0 {
		t.Fatalf("blocked: %v", tr.blocked)
	}
	r := tr.rule
	wantExpr := `http.host wildcard "*.example.org" and http.request.uri.path wildcard "/login*" and http.request.method in {"GET" "POST"} and ssl and not (http.host wildcard "a.example.org" and http.request.uri.path wildcard "/login/ok")`
	if r.Expression != wantExpr || r.Action != "block" || !*r.Enabled || r.Ref != "rate_limit:r1" {
		t.Fatalf("rule %+v", r)
	}
	p := decodeRatelimit(t, r.RateLimit)
	if p.Period != 600 || p.MitigationTimeout != 3600 || p.RequestsPerPeriod != 60 || !p.ToOrigin ||
		strings.Join(p.Characteristics, ",") != "cf.colo.id,cf.unique_visitor_id" {
		t.Fatalf("ratelimit %+v", p)
	}
	if !strings.Contains(p.CountingExpr, `http.response.code in {401 403}`) || !strings.Contains(p.CountingExpr, `not any(http.response.headers["cf-cache-status"][*] eq "HIT")`) {
		t.Fatalf("counting %s", p.CountingExpr)
	}
	if _, err := expr.Parse(p.CountingExpr); err != nil {
		t.Fatalf("counting expression does not parse: %v", err)
	}
	if !strings.Contains(string(r.ActionParameters), `"status_code":429`) || !strings.Contains(string(r.ActionParameters), `"content":"\u003cerror/\u003e"`) {
		t.Fatalf("response %s", r.ActionParameters)
	}
	if tr.risk != RiskMedium {
		t.Fatalf("900 s -> 600 s is less than twofold: risk %s", tr.risk)
	}

	// Business: the method and the counting expression are allowed, the scheme becomes a full
	// URI wildcard (no ssl field), counting by NAT is Enterprise only: blocked, never dropped.
	bus := translateRateLimit(rl, "business")
	if !strings.Contains(bus.rule.Expression, `http.request.full_uri wildcard "https://*"`) || strings.Contains(bus.rule.Expression, " ssl") {
		t.Fatalf("business scheme: %s", bus.rule.Expression)
	}
	if len(bus.blocked) != 1 || !strings.Contains(bus.blocked[0], "cf.unique_visitor_id") {
		t.Fatalf("business blocked: %v", bus.blocked)
	}

	// Pro: neither the method nor response conditions can be expressed: blocked, each named.
	pro := translateRateLimit(rl, "pro")
	joined := strings.Join(pro.blocked, " | ")
	for _, want := range []string{"http.request.method", "counting expression", "cf.unique_visitor_id"} {
		if !strings.Contains(joined, want) {
			t.Errorf("pro: %q not named among blockers: %s", want, joined)
		}
	}
	if p := decodeRatelimit(t, pro.rule.RateLimit); p.Period != 60 || p.MitigationTimeout != 3600 {
		t.Errorf("pro period/timeout %+v", p)
	}
	if pro.risk != RiskHigh {
		t.Errorf("pro: 900 s -> 60 s must be high risk, got %s", pro.risk)
	}

	// Free: only the path; the host of the url cannot be expressed.
	free := translateRateLimit(inventory.RateLimit{ID: "f", Threshold: 5, Period: 60,
		Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "blog.example.org/wp-login.php*"}},
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3600}}, "free")
	if len(free.blocked) != 1 || !strings.Contains(free.blocked[0], "http.host") {
		t.Fatalf("free blocked: %v", free.blocked)
	}
	pathOnly := translateRateLimit(inventory.RateLimit{ID: "f", Threshold: 5, Period: 60,
		Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "*/wp-login.php*", Methods: []string{"_ALL_"}}},
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3600}}, "free")
	if p := decodeRatelimit(t, pathOnly.rule.RateLimit); len(pathOnly.blocked) > 0 || p.Period != 10 || p.MitigationTimeout != 10 {
		t.Fatalf("free path only: %v %+v", pathOnly.blocked, p)
	}

	// Challenge actions take mitigation_timeout 0 (the API requires it).
	ch := translateRateLimit(inventory.RateLimit{ID: "c", Threshold: 5, Period: 60,
		Action: inventory.RateLimitAction{Mode: "managed_challenge", Timeout: 600}}, "enterprise")
	if p := decodeRatelimit(t, ch.rule.RateLimit); p.MitigationTimeout != 0 {
		t.Fatalf("challenge timeout %d", p.MitigationTimeout)
	}

	rl.Action.Mode = "simulate"
	if sim := translateRateLimit(rl, "pro"); len(sim.blocked) == 0 || sim.rule.Action != "log" {
		t.Fatalf("simulate on pro: %+v", sim)
	}
	if sim := translateRateLimit(rl, "enterprise"); len(sim.blocked) != 0 || len(sim.rule.ActionParameters) != 0 {
		t.Fatalf("simulate on enterprise: %+v", sim)
	}
}

type ratelimitJSON struct {
	Characteristics   []string `json:"characteristics"`
	Period            int      `json:"period"`
	RequestsPerPeriod int      `json:"requests_per_period"`
	MitigationTimeout int      `json:"mitigation_timeout"`
	CountingExpr      string   `json:"counting_expression"`
	ToOrigin          bool     `json:"requests_to_origin"`
}

func decodeRatelimit(t *testing.T, raw json.RawMessage) ratelimitJSON {
	t.Helper()
	var p ratelimitJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCategoryOf(t *testing.T) {
	for name, want := range map[string]string{"Cloudflare Drupal": "drupal", "Cloudflare WordPress": "wordpress", "OWASP Bad Robots": "", "Cloudflare Specials": ""} {
		if got := categoryOf(name); got != want {
			t.Errorf("categoryOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestEscapeMarkdown(t *testing.T) {
	in := "Block <script>alert(1)</script> | `SEC-42` *x*\nnext"
	got := EscapeMarkdown(in)
	for _, bad := range []string{"<script>", " | ", " `SEC", " *x*", "\n"} {
		if strings.Contains(got, bad) {
			t.Errorf("EscapeMarkdown left %q in %q", bad, got)
		}
	}
	if c := code("a `b` c"); c != "``a `b` c``" {
		t.Errorf("code = %s", c)
	}
	if c := code("`x"); c != "`` `x ``" {
		t.Errorf("code = %s", c)
	}
}

// TestMarkdownEscapesUserText: descriptions with pipes, backticks and <script> render as
// text in plan.md.
func TestMarkdownEscapesUserText(t *testing.T) {
	p := &Plan{SchemaVersion: SchemaVersion, Zones: []ZonePlan{{ZoneID: "z", ZoneName: "x.example", Steps: []Step{{
		ID: "s", Kind: "k", Change: ChangeDelete, Method: "DELETE", Path: "/zones/z/x", Risk: RiskLow,
		Title: "Delete \"<script>alert(1)</script> | `x`\"", Reason: "r",
		Diffs: []Diff{{Label: "l", Old: "a ``` b\nc", New: "d"}},
	}}}}}
	p.finish()
	var b strings.Builder
	if err := p.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "<script>") || strings.Contains(md, "| `x`") {
		t.Fatalf("unescaped user text:\n%s", md)
	}
	if !strings.Contains(md, "````diff") {
		t.Fatalf("a diff holding ``` needs a longer fence:\n%s", md)
	}
	if !strings.Contains(md, "0 to create, 0 to change, 0 to pause, 1 to delete, 0 manual") {
		t.Fatalf("no summary line:\n%s", md)
	}
}

// TestBuildNil: no snapshot, an empty plan that still renders.
func TestBuildNil(t *testing.T) {
	p := Build(nil, scannerResult(), Options{})
	if len(p.Zones)+len(p.Accounts) != 0 || p.SchemaVersion != SchemaVersion {
		t.Fatalf("%+v", p)
	}
	var b strings.Builder
	if err := p.WriteMarkdown(&b); err != nil || !strings.Contains(b.String(), "No changes") {
		t.Fatalf("%v %s", err, b.String())
	}
}

func scannerResult() scanner.Result { return scanner.Result{} }

// TestDeterministic: the same scan yields the same plan.json bytes, whatever the order the
// snapshot lists zones and accounts in; ReadPlan reads it back.
func TestDeterministic(t *testing.T) {
	asOf := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	render := func(reverse bool) []byte {
		snap := seed.Demo()
		if reverse {
			slices.Reverse(snap.Zones)
			slices.Reverse(snap.Accounts)
		}
		res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: asOf})
		var b bytes.Buffer
		if err := Build(snap, res, Options{AsOf: asOf}).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := render(false), render(true)
	if !bytes.Equal(a, b) {
		t.Fatal("plan.json depends on the snapshot's order")
	}
	p, err := ReadPlan(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := p.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, again.Bytes()) {
		t.Fatal("plan.json does not round-trip through ReadPlan")
	}
	if _, err := ReadPlan(strings.NewReader(`{"schema_version": 99}`)); err == nil {
		t.Fatal("a newer schema was accepted")
	}
}

// TestEveryStepIsWellFormed: ids unique per scope, dependencies point backwards, API steps
// have a method and a path, every live finding is resolved by some step.
// TestEveryStepIsWellFormed: on the demo (before and after the settings' ends of life) and on
// generated accounts, step ids are unique, dependencies come first, automatic steps have a
// call, no path holds a placeholder (":ruleset_id", "{id}"), no step writes to a deprecated
// setting endpoint past its end of life, and every finding is resolved by a step.
func TestEveryStepIsWellFormed(t *testing.T) {
	early, late := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		snap *inventory.Snapshot
		asOf time.Time
	}{
		{"demo early", seed.Demo(), early}, {"demo late", seed.Demo(), late},
		{"generated early", seed.Generate(300, 2), early}, {"generated late", seed.Generate(300, 2), late},
		{"migratable", seed.GenerateMigratable(100, 2), late},
	} {
		res := scanner.ScanSnapshot(c.snap, nil, scanner.Options{AsOf: c.asOf})
		p := Build(c.snap, res, Options{AsOf: c.asOf})
		resolved := map[string]bool{}
		for _, a := range p.Accounts {
			checkSteps(t, c.name+" "+a.AccountID, a.Steps, c.asOf, resolved)
		}
		for _, z := range p.Zones {
			checkSteps(t, c.name+" "+z.ZoneName, z.Steps, c.asOf, resolved)
		}
		for _, f := range res.Findings {
			if !resolved[f.Fingerprint] {
				t.Errorf("%s: finding %s %s %s resolved by no step", c.name, f.RuleID, f.ZoneName, f.Resource.ID)
			}
		}
	}
}

func checkSteps(t *testing.T, scope string, steps []Step, asOf time.Time, resolved map[string]bool) {
	t.Helper()
	cat := catalog.Default()
	seen := map[string]bool{}
	for _, st := range steps {
		if seen[st.ID] {
			t.Errorf("%s: duplicate step id %s", scope, st.ID)
		}
		for _, d := range st.DependsOn {
			if !seen[d] {
				t.Errorf("%s: step %s depends on %s, which is not before it", scope, st.ID, d)
			}
		}
		seen[st.ID] = true
		if !st.Manual && (st.Method == "" || st.Path == "") {
			t.Errorf("%s: automatic step %s has no call", scope, st.ID)
		}
		if strings.Contains(st.Path, "/:") || strings.ContainsAny(st.Path, "{}") {
			t.Errorf("%s: step %s has a placeholder in its path %s", scope, st.ID, st.Path)
		}
		if st.Method != "" && st.Method != "GET" {
			for _, e := range cat.MatchEndpoint(st.Method, st.Path) {
				if strings.HasPrefix(string(e.ID), "zone-setting-") && e.SeverityAt(asOf) == catalog.SeverityError {
					t.Errorf("%s: step %s writes %s %s past its end of life (%s)", scope, st.ID, st.Method, st.Path, e.EndOfLife)
				}
			}
		}
		if st.Reason == "" || st.Risk == "" || st.Title == "" {
			t.Errorf("%s: step %s lacks a reason, risk or title", scope, st.ID)
		}
		for _, f := range st.Resolves {
			resolved[f] = true
		}
	}
}
