//go:build unix

package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
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

// runChromium loads file in a fresh headless profile with every host unresolvable, logs its
// network activity, and returns what it printed. mode is "--dump-dom" or "--screenshot=PATH".
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
		"--hide-scrollbars", "--window-size=1280,2000",
	}, mode...)
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
// must hold the summary numbers, the timeline, every findings row, the plan, the script's
// work (sorting buttons, the filter count), and no trace of the planted markup running; the
// console must show no policy violation or script error; the page must request nothing; and
// a screenshot must be a PNG of the page.
func TestHTMLInBrowser(t *testing.T) {
	browser := findChromium(t)
	if testing.Short() {
		t.Skip("the real-browser test takes several seconds; skipped in -short")
	}
	rep := readFixtureReport(t, "demo-report.json")
	rep.Findings[0].Message += ` <img src=x onerror="document.body.setAttribute('data-pwned','img')">`
	rep.Catalog[0].Description += `<script>document.body.setAttribute('data-pwned','script')</script>`
	page := renderHTML(t, HTML{Plan: readFixturePlan(t, "demo-plan.json")}, rep)
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
		// The findings table, after the script: every row, sort buttons, the filter count.
		if got := findingRows(dom); got != len(rep.Findings) {
			t.Errorf("%d findings rows in the DOM, want %d", got, len(rep.Findings))
		}
		n := len(rep.Findings)
		for _, want := range []string{
			`id="findings-table" data-interactive="true"`,
			fmt.Sprintf(">%d of %d findings shown</output>", n, n),
			`<button type="button" class="sort" title="Sort by severity">Severity</button>`,
			`<form class="controls noprint" id="findings-controls">`, // unhidden by the script
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
		for _, line := range strings.Split(run.stderr, "\n") {
			if strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Uncaught") {
				t.Errorf("console: %s", line)
			}
		}
		if urls := pageRequests(t, run.netLog); len(urls) > 0 {
			t.Errorf("the page made network requests: %v", urls)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		shot := filepath.Join(dir, "report.png")
		run := runChromium(t, browser, file, "--screenshot="+shot)
		data, err := os.ReadFile(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v\nstderr:\n%s", err, tail(run.stderr, 2000))
		}
		if dst := os.Getenv("SUNSET_SCREENSHOT"); dst != "" { // to look at it
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Error(err)
			}
		}
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatal("the screenshot is not a PNG")
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("decoding the screenshot: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
			t.Errorf("screenshot is %dx%d, want 1280x2000", b.Dx(), b.Dy())
		}
		if n := distinctColors(img, 2000); n < 8 {
			t.Errorf("the screenshot has %d distinct colours: the page did not render", n)
		}
		if urls := pageRequests(t, run.netLog); len(urls) > 0 {
			t.Errorf("the page made network requests: %v", urls)
		}
	})

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
