// Package help holds sunset's reference as help topics: Markdown files beside this one, which
// read as they are on the forge and are embedded in the binary for `sunset help TOPIC`.
package help

import (
	"embed"
	"regexp"
	"strings"
)

//go:embed *.md
var files embed.FS

// order lists the topics as `sunset help topics` shows them: in the order a newcomer meets
// what they describe. Every Markdown file here is one of them (a test holds both ways).
var order = []string{
	"scan", "resume", "cost", "check", "formats", "json", "plan", "verify", "apply", "safety", "fix",
	"translate", "emulator", "catalog", "flags", "exit-codes", "security", "development",
}

// Topic is one help topic: its name (the file's, without .md) and its one-line summary (the
// file's title).
type Topic struct {
	Name, Summary string
}

// Topics lists every topic in the order `sunset help topics` shows them.
func Topics() []Topic {
	out := make([]Topic, 0, len(order))
	for _, name := range order {
		text, _ := Markdown(name)
		title, _, _ := strings.Cut(text, "\n")
		out = append(out, Topic{Name: name, Summary: strings.TrimSpace(strings.TrimPrefix(title, "#"))})
	}
	return out
}

// Names lists the names of the embedded Markdown files, without .md, in file order.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".md"))
	}
	return out
}

// Markdown is the topic's file as written, and whether there is such a topic.
func Markdown(name string) (string, bool) {
	if strings.ContainsAny(name, "/.\\") {
		return "", false // a topic name, never a path into the embedded files
	}
	data, err := files.ReadFile(name + ".md")
	if err != nil {
		return "", false
	}
	return string(data), true
}

// topicLink is a Markdown link to another topic ([text](name.md) or [text](name.md#part)),
// and readmeLink one to the README or another file of the repository.
var (
	topicLink  = regexp.MustCompile(`\[([^\]]+)\]\(([a-z-]+)\.md(?:#[a-z0-9-]*)?\)`)
	readmeLink = regexp.MustCompile(`\[([^\]]+)\]\(\.\./[^)]*\)`)
)

// Terminal is the topic as `sunset help` prints it: the Markdown, with links to other topics
// written as the command that shows them ("the cost model (sunset help cost)"), since a
// terminal follows no link, and links into the repository written as their text.
func Terminal(name string) (string, bool) {
	text, ok := Markdown(name)
	if !ok {
		return "", false
	}
	text = topicLink.ReplaceAllString(text, "$1 ('sunset help $2')")
	return readmeLink.ReplaceAllString(text, "$1"), true
}
