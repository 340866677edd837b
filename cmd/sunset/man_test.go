package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
)

// TestManPages writes the manual pages with `sunset help --man DIR` and renders each with
// groff as man does, on an 80-column terminal: no page warns, every command's page holds each
// flag --help lists and the first words of its usage, and every topic's page the first
// words of the topic.
func TestManPages(t *testing.T) {
	t.Parallel()
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed (Debian's groff-base; .ci/run installs it)")
	}
	dir := filepath.Join(t.TempDir(), "man")
	if out, err := exec.Command("sunset", "help", "--man", dir).CombinedOutput(); err != nil {
		t.Fatalf("sunset help --man: %v\n%s", err, out)
	}
	commands := helpCommands(t)
	var want []string
	want = append(want, "sunset.1")
	for _, c := range commands {
		want = append(want, "sunset-"+c+".1")
	}
	for _, topic := range help.Topics() {
		want = append(want, "sunset-"+topic.Name+".7")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("pages written:\n%q\nwant:\n%q", got, want)
	}
	for _, page := range want {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			text := renderMan(t, groff, filepath.Join(dir, page))
			name := strings.TrimSuffix(strings.TrimPrefix(page, "sunset-"), filepath.Ext(page))
			switch {
			case page == "sunset.1":
				for _, c := range commands {
					mustContain(t, page, text, "sunset-"+c+"(1)")
				}
			case strings.HasSuffix(page, ".1"):
				checkCommandPage(t, page, text, name)
			default:
				md, _ := help.Markdown(name)
				mustContain(t, page, text, firstWords(md, 8))
			}
		})
	}
}

// checkCommandPage: each flag line of `sunset CMD --help` is on the page, with the first words
// of its usage, and so is every example.
func checkCommandPage(t *testing.T, page, text, cmd string) {
	out, err := exec.Command("sunset", cmd, "--help").Output()
	if err != nil {
		t.Fatalf("sunset %s --help: %v", cmd, err)
	}
	_, options, _ := strings.Cut(string(out), "\nOPTIONS:\n")
	options, examples, _ := strings.Cut(options, "\nEXAMPLES:\n")
	examples, _, _ = strings.Cut(examples, "\nLEARN MORE:\n")
	for _, line := range strings.Split(options, "\n") {
		flag, usage, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok || !strings.HasPrefix(flag, "-") || strings.HasPrefix(flag, "--help") {
			continue
		}
		mustContain(t, page, text, flag)
		mustContain(t, page, text, strings.Join(strings.Fields(usage)[:min(4, len(strings.Fields(usage)))], " "))
	}
	for _, line := range strings.Split(examples, "\n") {
		if l, ok := strings.CutPrefix(strings.TrimSpace(line), "$ "); ok {
			mustContain(t, page, text, l)
		}
	}
}

// renderMan renders a page as text as man does (preconv, tbl, the man macros), failing on
// any warning groff gives.
func renderMan(t *testing.T, groff, path string) string {
	t.Helper()
	cmd := exec.Command(groff, "-k", "-t", "-man", "-Tutf8", "-ww", "-rLL=80n", "-P-cbou", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("groff %s: %v\n%s", filepath.Base(path), err, stderr.String())
	}
	return string(out)
}

// helpCommands are the commands `sunset --help` lists, but help.
func helpCommands(t *testing.T) []string {
	out, err := exec.Command("sunset", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(out), "\nCOMMANDS:\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "   ") || strings.HasPrefix(line, "    ") {
			break
		}
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		name = strings.TrimSuffix(name, ",")
		if name != "help" {
			names = append(names, name)
		}
	}
	if len(names) < 10 {
		t.Fatalf("sunset --help lists %d commands:\n%s", len(names), out)
	}
	return names
}

// markup is what a topic's first paragraph may hold that a page does not show.
var markup = regexp.MustCompile("[`*]")

// firstWords is the first n words of a topic's first paragraph of prose (not its title, a
// code block, a table or a list), as text, up to a link.
func firstWords(md string, n int) string {
	var para []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
			continue
		case fenced || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") || strings.HasPrefix(line, "- "):
			continue
		case strings.TrimSpace(line) == "" && len(para) > 0:
		case strings.TrimSpace(line) != "":
			para = append(para, line)
			continue
		default:
			continue
		}
		break
	}
	text, _, link := strings.Cut(strings.Join(para, " "), "](")
	if i := strings.LastIndex(text, "["); link && i >= 0 {
		text = text[:i]
	}
	words := strings.Fields(markup.ReplaceAllString(text, ""))
	return strings.Join(words[:min(n, len(words))], " ")
}

// mustContain fails unless text, its spaces and line breaks taken as one space, holds want.
func mustContain(t *testing.T, page, text, want string) {
	t.Helper()
	if !strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(want), " ")) {
		t.Errorf("%s lacks %q", page, want)
	}
}
