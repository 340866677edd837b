package help

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's top directory, from this package's.
const root = "../../.."

func TestEveryFileIsATopicAndEveryTopicAFile(t *testing.T) {
	names := Names()
	listed := slices.Clone(order)
	slices.Sort(listed)
	if !slices.Equal(names, listed) {
		t.Errorf("the Markdown files here and the topics listed differ:\nfiles  %v\nlisted %v", names, listed)
	}
	for _, topic := range Topics() {
		if topic.Summary == "" || strings.HasPrefix(topic.Summary, "#") {
			t.Errorf("%s: no title line to summarise it (%q)", topic.Name, topic.Summary)
		}
	}
	for _, bad := range []string{"../README", "scan.md", "", "topics_test.go"} {
		if _, ok := Markdown(bad); ok {
			t.Errorf("Markdown(%q) found a topic", bad)
		}
	}
}

// mdLink is a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: every relative link of the README and of the topics names a file that
// exists, and an anchor a heading of it; the README links every topic.
func TestLinksResolve(t *testing.T) {
	docs := map[string]string{"README.md": filepath.Join(root, "README.md")}
	for _, n := range Names() {
		docs[n+".md"] = n + ".md"
	}
	readmeLinks := map[string]bool{}
	for name, path := range docs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := filepath.Join(filepath.Dir(path), file)
			if file == "" {
				resolved = path
			}
			if name == "README.md" {
				readmeLinks[filepath.Clean(resolved)] = true
			}
			checkTarget(t, name, target, resolved, anchor)
		}
	}
	for _, n := range Names() {
		if !readmeLinks[filepath.Join(root, "cmd/sunset/help", n+".md")] {
			t.Errorf("the README does not link the topic %s", n)
		}
	}
}

// checkTarget fails when a link's file is missing or its anchor names no heading there.
func checkTarget(t *testing.T, doc, target, path, anchor string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: link %s: %v", doc, target, err)
		return
	}
	if anchor == "" || st.IsDir() {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if heading, ok := strings.CutPrefix(line, "#"); ok && slug(heading) == anchor {
			return
		}
	}
	t.Errorf("%s: link %s: no heading with that anchor", doc, target)
}

// slug is a heading's anchor as the forge makes it: lower case, spaces to dashes, punctuation
// other than dashes and underscores dropped.
func slug(heading string) string {
	heading = strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#")))
	var b strings.Builder
	for _, r := range heading {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// testName is a test, benchmark or fuzz function's name, which users have no use for.
var testName = regexp.MustCompile(`\b(Test|Benchmark|Fuzz)[A-Z]\w*`)

// TestNoTestNamesInUserDocs: the README and the topics name no test function; a command a
// reader can run (a `go test` line, with its -bench or -fuzz pattern) may name what it runs.
func TestNoTestNamesInUserDocs(t *testing.T) {
	paths := []string{filepath.Join(root, "README.md")}
	for _, n := range Names() {
		paths = append(paths, n+".md")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "go test ") {
				continue
			}
			if m := testName.FindString(line); m != "" {
				t.Errorf("%s:%d names the test %s", path, i+1, m)
			}
		}
	}
}

// TestREADMETestCommandIsCIs: the README's second line of commands is what .ci/run runs.
func TestREADMETestCommandIsCIs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	if len(lines) < 5 || lines[2] != "```sh" || !strings.HasPrefix(lines[3], "go run ./cmd/sunset demo ") {
		t.Fatalf("the README does not open with the demo command:\n%s", strings.Join(lines[:min(5, len(lines))], "\n"))
	}
	test, _, _ := strings.Cut(lines[4], "#")
	test = strings.TrimSpace(test)
	if !slices.Contains(strings.Split(string(ci), "\n"), test) {
		t.Errorf("the README's test command %q is not a line of .ci/run", test)
	}
}

// TestTerminalWritesLinksAsCommands: a terminal follows no link, so a link to a topic reads
// as the command that shows it, and one into the repository as its text.
func TestTerminalWritesLinksAsCommands(t *testing.T) {
	for _, n := range Names() {
		text, ok := Terminal(n)
		if !ok {
			t.Fatalf("Terminal(%q) found nothing", n)
		}
		if m := regexp.MustCompile(`\]\([^)]*\.md[^)]*\)`).FindString(text); m != "" {
			t.Errorf("%s: a link is left in the terminal text: %s", n, m)
		}
	}
	text, _ := Terminal("scan")
	if !strings.Contains(text, "model ('sunset help cost')") {
		t.Errorf("scan's link to the cost topic is not written as a command:\n%s", text)
	}
}

// readmeMaxLines is how long the README may be: an overview, with the reference in the topics.
const readmeMaxLines = 250

// TestREADMEIsShort: the README is at most readmeMaxLines lines.
func TestREADMEIsShort(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > readmeMaxLines {
		t.Errorf("the README has %d lines, more than %d: move the detail into a help topic", n, readmeMaxLines)
	}
}

func TestTitlesAndHasReadWhatMarkdownReads(t *testing.T) {
	for _, topic := range Topics() {
		text, ok := Markdown(topic.Name)
		first, _, _ := strings.Cut(text, "\n")
		if want := strings.TrimSpace(strings.TrimPrefix(first, "#")); !ok || topic.Summary != want || want == "" {
			t.Errorf("%s: summary %q, want the file's title %q", topic.Name, topic.Summary, want)
		}
	}
	for _, name := range append(Names(), "nope", "../README", "scan.md", "", ".", "a/b") {
		_, want := Markdown(name)
		if got := Has(name); got != want {
			t.Errorf("Has(%q) = %v, Markdown finds it: %v", name, got, want)
		}
	}
}
