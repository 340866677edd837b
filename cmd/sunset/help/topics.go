// Package help holds sunset's reference as help topics: Markdown files beside this one, which
// read as they are on the forge and are embedded in the binary for `sunset help TOPIC`.
package help

import (
	"embed"
	"io"
	"io/fs"
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

// Topics lists every topic in the order `sunset help topics` shows them. Every command
// lists them in its help, built as the program starts: only the titles are read, not the
// 190 KB of the files (start-up is part of every `sunset check` a CI job times).
func Topics() []Topic {
	out := make([]Topic, 0, len(order))
	for _, name := range order {
		out = append(out, Topic{Name: name, Summary: strings.TrimSpace(strings.TrimPrefix(title(name), "#"))})
	}
	return out
}

// maxTitle bounds what title reads of a topic's file.
const maxTitle = 256

// title is the first line of the topic's file, read alone.
func title(name string) string {
	file, ok := fileOf(name)
	if !ok {
		return ""
	}
	f, err := files.Open(file)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // embedded: nothing to flush or leak
	var buf [maxTitle]byte
	n, _ := io.ReadFull(f, buf[:])
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return line
}

// Has reports whether there is a topic of that name, without reading it.
func Has(name string) bool {
	file, ok := fileOf(name)
	if !ok {
		return false
	}
	_, err := fs.Stat(files, file)
	return err == nil
}

// fileOf is the embedded file of a topic name; never a path into the embedded files.
func fileOf(name string) (string, bool) {
	if strings.ContainsAny(name, "/.\\") {
		return "", false
	}
	return name + ".md", true
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
	file, ok := fileOf(name)
	if !ok {
		return "", false
	}
	data, err := files.ReadFile(file)
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
