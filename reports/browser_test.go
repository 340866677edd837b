//go:build unix

package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
)

// chromiumNames are the executable names of Chromium (Debian's package installs chromium).
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}

// findChromium returns the browser to test with. Outside CI a missing browser skips the
// test; in CI (CI set) it fails it, since .ci/run installs one.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SUNSET_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but no Chromium is installed (looked for %s; .ci/run installs Debian's chromium)", strings.Join(chromiumNames, ", "))
	}
	t.Skipf("no Chromium found (looked for %s, or set SUNSET_CHROMIUM): skipping the real-browser test of the HTML report; apt-get install chromium to run it", strings.Join(chromiumNames, ", "))
	return ""
}

// chromeRun is one headless Chromium run on a local file.
type chromeRun struct {
	stdout, stderr string
	netLog         string // path of the network log
}

// runChromium loads file (a path, with a #fragment if any) in a fresh headless profile with
// every host unresolvable, logs its network activity, and returns what it printed. mode is
// "--dump-dom" or "--screenshot=PATH", with other switches (a --window-size replaces the
// default 1280x2000).
func runChromium(t *testing.T, browser, file string, mode ...string) chromeRun {
	t.Helper()
	dir, err := os.MkdirTemp("", "sunset-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Best effort: the browser's helper processes may still be closing files when the test ends.
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	netLog := filepath.Join(dir, "netlog.json")
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-domain-reliability", "--no-pings",
		// Nothing can leave the machine: every host name fails to resolve.
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--log-net-log=" + netLog,
		// Console messages (CSP violations, script errors) go to stderr.
		"--enable-logging=stderr", "--v=0",
		"--hide-scrollbars",
	}, mode...)
	if !slices.ContainsFunc(mode, func(m string) bool { return strings.HasPrefix(m, "--window-size=") }) {
		args = append(args, "--window-size=1280,2000")
	}
	args = append(args, "file://"+file)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = append(os.Environ(), "HOME="+dir)
	// The browser starts helper processes: put them in its own process group and end that
	// group (and only it) if the run overstays.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", browser, strings.Join(mode, " "), err, tail(errOut.String(), 3000))
	}
	return chromeRun{stdout: out.String(), stderr: errOut.String(), netLog: netLog}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// pageRequests reads a Chromium network log and returns the URLs the page asked for. The
// browser's own background requests (component updates, time, accounts) have no initiator
// ("not an origin") and are not the page's; a request made by a file:// page has the opaque
// initiator "null" or a file:// isolation key. File loads themselves never appear.
func pageRequests(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no network log: %v", err)
	}
	// A browser that ends before it closes the log leaves the events array open.
	if !json.Valid(data) {
		data = append(bytes.TrimRight(data, " \n\r\t,"), "]}"...)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL        string `json:"url"`
				Initiator  string `json:"initiator"`
				Isolation  string `json:"network_isolation_key"`
				SiteForCkz string `json:"site_for_cookies"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("reading the network log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the network log has no URL_REQUEST_START_JOB event type: cannot tell what was requested")
	}
	var urls []string
	for _, e := range log.Events {
		if e.Type != start || e.Params.URL == "" {
			continue
		}
		p := e.Params
		fromPage := p.Initiator != "not an origin" || strings.Contains(p.Isolation, "file://")
		if fromPage && !strings.HasPrefix(p.URL, "file://") {
			urls = append(urls, p.URL)
		}
	}
	return urls
}

// TestHTMLInBrowser loads the demo's HTML report (with its plan, and markup planted in a
// finding and a rule description) in headless Chromium. The DOM after the page's script ran
// must hold the summary numbers, the "what to do first" section, the timeline, every finding
// in its group, the plan, the script's work (the filter count), and no trace of the planted
// markup running; the console must show no policy violation or script error; the page must
// request nothing. The layout subtests work the page at 1400 and 800 px wide (see
// browserLayout) and take screenshots.
func TestHTMLInBrowser(t *testing.T) {
	browser := findChromium(t)
	if testing.Short() {
		t.Skip("the real-browser test takes several seconds; skipped in -short")
	}
	rep := readFixtureReport(t, "demo-report.json")
	rep.Findings.Slice()[0].Message += ` <img src=x onerror="document.body.setAttribute('data-pwned','img')">`
	rep.Catalog[0].Description += `<script>document.body.setAttribute('data-pwned','script')</script>`
	plan := readFixturePlan(t, "demo-plan.json")
	// A rate limit that the zone's quota keeps (as on a zone of a smaller plan), so the page
	// shows, and the screenshots picture, what blocks a migration.
	z, ok := plan.Zone("docs.example.test")
	if !ok {
		t.Fatal("the demo plan has no zone docs.example.test")
	}
	z.Steps = append(z.Steps, migrate.Step{
		ID: "rate-limit.keep:0f0f", Kind: "rate-limit.keep", Change: migrate.ChangeManual, Manual: true, Risk: migrate.RiskHigh,
		Title:  `Keep rate limit "Search API" (0f0f) until it can be migrated`,
		Reason: fmt.Sprintf("It cannot become a rate limiting rule now: it does not fit the %s plan's quota of rate limiting rules.", z.PlanLevel),
	})
	page := renderHTML(t, HTML{Plan: plan}, rep)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("dom", func(t *testing.T) {
		run := runChromium(t, browser, file, "--dump-dom")
		dom := run.stdout
		if !strings.Contains(dom, "<h1>Deprecated API usage report</h1>") {
			t.Fatalf("the dumped DOM is not the report:\n%s", tail(dom, 2000))
		}
		s := rep.Summary
		for key, value := range map[string]int{
			"zones": s.ZonesScanned, "findings": s.FindingsTotal, "error": s.BySeverity.Error,
			"warning": s.BySeverity.Warning, "notice": s.BySeverity.Notice, "incomplete": s.ZonesFailed,
		} {
			if !regexp.MustCompile(`data-card="` + key + `"><span class="value">` + fmt.Sprint(value) + `</span>`).MatchString(dom) {
				t.Errorf("summary card %s = %d not in the DOM", key, value)
			}
		}
		// The timeline: the picture, one row per dated catalog entry, the as-of mark.
		if !strings.Contains(dom, `aria-labelledby="timeline-title"`) || !strings.Contains(dom, `>as of 2025-02-01</text>`) {
			t.Error("the timeline or its as-of mark is missing from the DOM")
		}
		if got, want := strings.Count(dom, `<g class="tl-row`), strings.Count(page, `<g class="tl-row`); got != want || got == 0 {
			t.Errorf("timeline rows in the DOM: %d, in the page: %d", got, want)
		}
		// The findings, after the script: every one in a group, all groups closed, the count.
		if got := findingRows(dom); got != rep.Findings.Len() {
			t.Errorf("%d findings in the DOM, want %d", got, rep.Findings.Len())
		}
		if n := strings.Count(dom, `<details class="group `); n == 0 || strings.Count(dom, `<details class="group `) != strings.Count(page, `<details class="group `) {
			t.Errorf("%d groups in the DOM", n)
		}
		n := rep.Findings.Len()
		for _, want := range []string{
			`id="finding-groups" data-interactive="true"`,
			fmt.Sprintf(">%d of %d findings shown</output>", n, n),
			`<form class="controls noprint" id="findings-controls">`, // unhidden by the script
			`<section id="first" aria-labelledby="first-h">`,
			`<li><span class="tag blocker">quota</span> <a href="#step-zone-`,
			`<section id="plan" class="break"`,
		} {
			if !strings.Contains(dom, want) {
				t.Errorf("the DOM lacks %q", want)
			}
		}
		// The planted markup stayed text.
		if strings.Contains(dom, "data-pwned=") {
			t.Error("markup planted in a finding or a rule description ran")
		}
		if !strings.Contains(dom, "setAttribute('data-pwned','script')&lt;/script&gt;") {
			t.Error("the planted description is not shown as text")
		}
		checkConsole(t, run)
	})

	// A link to a finding (as the plan's steps make) opens the group that holds it.
	t.Run("link-opens-group", func(t *testing.T) {
		f := rep.Findings.At(rep.Findings.Len() - 1)
		anchor := findingAnchor(&f)
		run := runChromium(t, browser, file+"#"+anchor, "--dump-dom")
		m := regexp.MustCompile(`<details class="group [^"]*" id="([^"]*)"[^>]*>`).FindAllStringSubmatchIndex(run.stdout, -1)
		at := strings.Index(run.stdout, `id="`+anchor+`"`)
		if len(m) == 0 || at < 0 {
			t.Fatalf("no groups, or no finding %s, in the DOM", anchor)
		}
		var holder string
		for _, g := range m {
			if g[0] < at {
				holder = run.stdout[g[0]:g[1]]
			}
		}
		if !strings.Contains(holder, " open=") {
			t.Errorf("the group of the linked finding is not open: %s", holder)
		}
		if got := strings.Count(run.stdout, `<details class="group `) - strings.Count(run.stdout, `" open="">`); got <= 0 {
			t.Errorf("every group opened, not only the linked one")
		}
	})

	for _, width := range []int{1400, 800} {
		t.Run(fmt.Sprintf("layout-%d", width), func(t *testing.T) {
			browserLayout(t, browser, dir, rep, plan, width)
		})
	}

	// The check of requests must be able to fail: a page that loads an image and fetches
	// is caught (the host names fail to resolve, but the requests are logged).
	t.Run("request-check-catches-a-fetch", func(t *testing.T) {
		probe := filepath.Join(dir, "probe.html")
		const html = `<!DOCTYPE html><title>probe</title><img src="http://sunset-probe.invalid/x.png"><script>fetch("https://sunset-probe.invalid/y").catch(function () {});</script>`
		if err := os.WriteFile(probe, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		run := runChromium(t, browser, probe, "--dump-dom")
		urls := pageRequests(t, run.netLog)
		sort.Strings(urls)
		if strings.Join(urls, " ") != "http://sunset-probe.invalid/x.png https://sunset-probe.invalid/y" {
			t.Errorf("the probe's requests were not both caught: %v", urls)
		}
	})
}

// TestHTMLInBrowserAt200Zones loads the page of 200 zones with its plan in headless
// Chromium: the script must run on it without an error and count every finding, and it is
// pictured at 1400 and 800 px (kept under SUNSET_SCREENSHOT_DIR when set, as
// reports/testdata/screenshots/zones200-*.png are). It logs how long Chromium took to load,
// run and dump the page; it asserts no time.
func TestHTMLInBrowserAt200Zones(t *testing.T) {
	browser, page, file := scalePageInBrowser(t)
	rep, _ := scaleFixture()
	dir := filepath.Dir(file)
	start := time.Now()
	run := runChromium(t, browser, file, "--dump-dom")
	t.Logf("%d bytes, %d findings: Chromium loaded and dumped the page in %s", len(page), rep.Findings.Len(), time.Since(start).Round(time.Millisecond))
	checkConsole(t, run)
	n := rep.Findings.Len()
	if got := findingRows(run.stdout); got != n {
		t.Errorf("%d findings in the DOM, want %d", got, n)
	}
	if !strings.Contains(run.stdout, fmt.Sprintf(">%d of %d findings shown</output>", n, n)) {
		t.Error("the script did not count the findings")
	}
	const height = 2200
	for _, width := range []int{1400, 800} {
		shot := filepath.Join(dir, fmt.Sprintf("zones200-%d.png", width))
		checkConsole(t, runChromium(t, browser, file, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", width, height)))
		checkScreenshot(t, shot, width, height)
	}
}

// checkConsole fails on a policy violation or a script error on the console, and on any
// request the page made.
func checkConsole(t *testing.T, run chromeRun) {
	t.Helper()
	for _, line := range strings.Split(run.stderr, "\n") {
		if strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	if urls := pageRequests(t, run.netLog); len(urls) > 0 {
		t.Errorf("the page made network requests: %v", urls)
	}
}

// layoutHarness is a page that shows the report in a frame of a given width and works it as
// a reader would: it clicks a group's summary line and a finding's, the expand-all and
// collapse-all buttons and the severity filter, measures what is visible and how wide the
// page is, writes what it saw as JSON into <pre id="result">, and leaves the frame scrolled
// to a section for a screenshot. It reaches into the frame, which Chromium allows between
// file:// pages only with --allow-file-access-from-files; the report keeps its own policy.
const layoutHarness = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>harness</title></head>
<body style="margin:0"><iframe id="r" src="report.html" style="border:0;display:block;width:%dpx;height:%dpx"></iframe>
<pre id="result">not run</pre>
<script>
window.addEventListener("load", function () {
  var out = {};
  try {
    var f = document.getElementById("r"), d = f.contentDocument, w = f.contentWindow;
    // checkVisibility: the content of a closed details element is laid out but not shown.
    var shown = function (el) { return !!el && el.checkVisibility(); };
    var all = function (sel) { return Array.prototype.slice.call(d.querySelectorAll(sel)); };
    var openCount = function () { return all("details.group[open]").length; };
    var width = function () {
      out.overflowing = out.overflowing || [];
      var cw = d.documentElement.clientWidth;
      all("body *").forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > cw + 1 && out.overflowing.length < 8) {
          out.overflowing.push(el.tagName.toLowerCase() + "." + el.className + " right " + Math.round(r.right));
        }
      });
      return d.documentElement.scrollWidth;
    };
    out.clientWidth = d.documentElement.clientWidth;
    out.groups = all("details.group").length;
    out.openAtLoad = openCount();
    out.scrollWidthClosed = width();
    var g = d.querySelector("details.group"), li = g.querySelector("li[data-severity]");
    var fd = li.querySelector("details.finding"), msg = fd.querySelector("p.msg");
    out.findingShownClosed = shown(li);
    var h0 = g.getBoundingClientRect().height;
    g.querySelector("summary").click();
    out.groupOpenAfterClick = g.open;
    out.findingShownOpen = shown(li);
    out.groupGrew = g.getBoundingClientRect().height > h0;
    out.messageShownBefore = shown(msg);
    fd.querySelector("summary").click();
    out.messageShownAfter = shown(msg);
    g.querySelector("summary").click();
    out.groupOpenAfterSecondClick = g.open;
    out.findingShownAfterSecondClick = shown(li);
    d.getElementById("expand-all").click();
    out.openAfterExpandAll = openCount();
    all("details").forEach(function (x) { x.open = true; });
    out.scrollWidthExpanded = width();
    out.headlineHeights = all("details.finding > summary").map(function (s) { return Math.round(s.getBoundingClientRect().height); });
    out.lineHeight = parseFloat(w.getComputedStyle(d.body).lineHeight);
    all("details").forEach(function (x) { x.open = false; });
    d.getElementById("expand-all").click();
    d.getElementById("collapse-all").click();
    out.openAfterCollapseAll = openCount();
    var sev = d.getElementById("filter-severity");
    sev.value = "error";
    sev.dispatchEvent(new w.Event("change"));
    out.shownErrors = d.getElementById("findings-shown").value;
    sev.value = "";
    sev.dispatchEvent(new w.Event("change"));
    out.first = all("#first li.first-entry").map(function (e) { return e.className; });
    out.firstTitles = all("#first li.first-entry .gtitle").map(function (e) { return e.textContent; });
    // The view to photograph: the first group open with its first finding.
    g.open = true;
    fd.open = true;
    w.scrollTo(0, d.getElementById("%s").getBoundingClientRect().top + w.scrollY);
  } catch (e) {
    out.error = String(e);
  }
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script></body></html>`

// layoutResult is what layoutHarness saw.
type layoutResult struct {
	Error                                    string
	ClientWidth, Groups, OpenAtLoad          int
	ScrollWidthClosed, ScrollWidthExpanded   int
	Overflowing                              []string
	FindingShownClosed, FindingShownOpen     bool
	GroupOpenAfterClick, GroupGrew           bool
	MessageShownBefore, MessageShownAfter    bool
	GroupOpenAfterSecondClick                bool
	FindingShownAfterSecondClick             bool
	OpenAfterExpandAll, OpenAfterCollapseAll int
	HeadlineHeights                          []int
	LineHeight                               float64
	ShownErrors                              string
	First, FirstTitles                       []string
}

// browserLayout loads the report at width px in layoutHarness and checks that groups start
// closed, open and close on a click and all at once with the buttons; that a finding is one
// line until opened; that nothing is wider than the window, closed or with everything open;
// that the severity filter counts the errors; and that "what to do first" lists the zones
// most urgent first. Then it takes screenshots of that section, of the findings and of the
// plan of the first zone, kept under SUNSET_SCREENSHOT_DIR when set
// (reports/testdata/screenshots holds some).
func browserLayout(t *testing.T, browser, dir string, rep *Report, plan *migrate.Plan, width int) {
	const height = 1000
	size := fmt.Sprintf("--window-size=%d,%d", width, height)
	harness := func(target string) string {
		path := filepath.Join(dir, fmt.Sprintf("harness-%d-%s.html", width, target))
		if err := os.WriteFile(path, []byte(fmt.Sprintf(layoutHarness, width, height, target)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shoot := func(target string) {
		shot := filepath.Join(dir, fmt.Sprintf("after-%s-%d.png", strings.SplitN(target, "-", 2)[0], width))
		checkConsole(t, runChromium(t, browser, harness(target), "--screenshot="+shot, "--allow-file-access-from-files", size))
		checkScreenshot(t, shot, width, height)
	}
	run := runChromium(t, browser, harness("findings"), "--dump-dom", "--allow-file-access-from-files", size)
	checkConsole(t, run)
	m := regexp.MustCompile(`<pre id="result">([^<]*)</pre>`).FindStringSubmatch(run.stdout)
	if m == nil {
		t.Fatalf("the harness wrote no result:\n%s", tail(run.stdout, 2000))
	}
	var res layoutResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &res); err != nil {
		t.Fatalf("the harness result %q: %v", m[1], err)
	}
	if res.Error != "" {
		t.Fatalf("the harness failed: %s", res.Error)
	}
	if res.ClientWidth != width {
		t.Errorf("the frame is %d px wide, want %d", res.ClientWidth, width)
	}
	if res.ScrollWidthClosed > width || res.ScrollWidthExpanded > width {
		t.Errorf("the page is wider than the window (%d px): %d px with groups closed, %d with everything open; too wide: %v",
			width, res.ScrollWidthClosed, res.ScrollWidthExpanded, res.Overflowing)
	}
	for name, c := range map[string]struct{ got, want any }{
		"groups open at load":                        {res.OpenAtLoad, 0},
		"finding shown in a closed group":            {res.FindingShownClosed, false},
		"group open after a click on its summary":    {res.GroupOpenAfterClick, true},
		"finding shown in the open group":            {res.FindingShownOpen, true},
		"group taller when open":                     {res.GroupGrew, true},
		"message shown before the finding is opened": {res.MessageShownBefore, false},
		"message shown after the finding is opened":  {res.MessageShownAfter, true},
		"group open after a second click":            {res.GroupOpenAfterSecondClick, false},
		"finding shown after the second click":       {res.FindingShownAfterSecondClick, false},
		"groups open after expand all":               {res.OpenAfterExpandAll, res.Groups},
		"groups open after collapse all":             {res.OpenAfterCollapseAll, 0},
		"shown with the error filter":                {res.ShownErrors, fmt.Sprintf("%d of %d findings shown", rep.Summary.BySeverity.Error, rep.Findings.Len())},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}
	if len(res.HeadlineHeights) != rep.Findings.Len() {
		t.Errorf("%d finding headlines measured, want %d", len(res.HeadlineHeights), rep.Findings.Len())
	}
	for _, h := range res.HeadlineHeights {
		if float64(h) > 1.9*res.LineHeight {
			t.Errorf("a finding's headline is %d px high, more than one line (%.0f px)", h, res.LineHeight)
			break
		}
	}
	checkFirstOrder(t, res, rep)
	shoot("findings")
	shoot("first")
	shoot("plan-" + zonePlanKey(plan.Zones[0]))
}

// checkFirstOrder checks "what to do first" lists every zone and account with findings,
// errors before the rest.
func checkFirstOrder(t *testing.T, res layoutResult, rep *Report) {
	t.Helper()
	groups := map[string]bool{}
	for i := range rep.Findings.Len() {
		k := groupKeyOf(new(rep.Findings.At(i)))
		groups[k.kind+k.accountID+k.zoneID] = true
	}
	if len(res.First) != len(groups) || len(res.First) == 0 {
		t.Fatalf("what to do first lists %d entries, the report has findings in %d zones and accounts", len(res.First), len(groups))
	}
	rank := func(class string) int {
		for i, sev := range []string{"sev-notice", "sev-warning", "sev-error"} {
			if strings.Contains(class, sev) {
				return i
			}
		}
		return -1
	}
	for i := 1; i < len(res.First); i++ {
		if rank(res.First[i]) > rank(res.First[i-1]) {
			t.Errorf("what to do first: %s (%s) after %s (%s)", res.FirstTitles[i], res.First[i], res.FirstTitles[i-1], res.First[i-1])
		}
	}
}

// checkScreenshot checks a screenshot is a PNG of the window's size with more than a blank
// page in it, and copies it to SUNSET_SCREENSHOT_DIR when set.
func checkScreenshot(t *testing.T, path string, width, height int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if dst := os.Getenv("SUNSET_SCREENSHOT_DIR"); dst != "" { // to look at it, or keep it
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(path)), data, 0o644); err != nil {
			t.Error(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	if n := distinctColors(img, 2000); n < 8 {
		t.Errorf("the screenshot has %d distinct colours: the page did not render", n)
	}
}

// distinctColors counts the colours of a grid of about n sampled pixels.
func distinctColors(img image.Image, n int) int {
	b := img.Bounds()
	side := max(1, int(math.Sqrt(float64(b.Dx()*b.Dy()/n))))
	seen := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += side {
		for x := b.Min.X; x < b.Max.X; x += side {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// htmlMaxPrintedPages is the most A4 pages the page of a 200-zone account may print on (it
// printed on 511 while every folded item was opened for the print).
const htmlMaxPrintedPages = 30

// TestHTMLPrintsInFewPagesAt200Zones prints the page of a 200-zone account to PDF in Chromium
// and counts its pages.
func TestHTMLPrintsInFewPagesAt200Zones(t *testing.T) {
	browser, _, file := scalePageInBrowser(t)
	pdf := filepath.Join(filepath.Dir(file), "report.pdf")
	run := runChromium(t, browser, file, "--print-to-pdf="+pdf, "--no-pdf-header-footer")
	checkConsole(t, run)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatalf("no PDF: %v", err)
	}
	pages := len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(data, -1))
	t.Logf("printed on %d pages", pages)
	if pages == 0 || pages > htmlMaxPrintedPages {
		t.Errorf("the page of %d zones prints on %d pages, want at most %d", scaleZones, pages, htmlMaxPrintedPages)
	}
}

// scalePageInBrowser is the browser and the page of 200 zones written to a file; it skips the
// test without a browser or under -short.
func scalePageInBrowser(t *testing.T) (browser, page, file string) {
	browser = findChromium(t)
	if testing.Short() {
		t.Skip("the real-browser test takes several seconds; skipped in -short")
	}
	page, _, _ = scalePage(t)
	file = filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return browser, page, file
}
