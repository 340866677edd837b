package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/russross/blackfriday/v2"
	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Manual pages are written from the text --help and `sunset help TOPIC` show, put in
// Markdown and turned into roff by go-md2man (the converter urfave/cli and cobra use): sunset(1),
// a page per command, sunset-COMMAND(1), and a page per help topic, sunset-TOPIC(7).

// manPage is one page: its file name and its roff text.
type manPage struct{ name, roff string }

// writeManPages writes every page into dir (created), and says on stderr what it wrote. As
// every output of sunset, neither dir nor a page is written through a symbolic link.
func writeManPages(app *ucli.App, dir string, s *Streams) error {
	pages := manPages(app)
	if err := safefile.MkdirNoFollow(dir); err != nil {
		return fatalError(fmt.Errorf("--man: %w", err))
	}
	for _, p := range pages {
		if err := safefile.WriteFile(filepath.Join(dir, p.name), []byte(p.roff)); err != nil {
			return fatalError(fmt.Errorf("--man: %w", err))
		}
	}
	fmt.Fprintf(s.Err, "wrote %d manual pages to %s (read one with: man -l %s)\n", len(pages), dir, filepath.Join(dir, "sunset.1"))
	return nil
}

// manPages are the pages of the app: sunset.1, then the commands', then the topics'.
func manPages(app *ucli.App) []manPage {
	pages := []manPage{{"sunset.1", roff(appManPage(app))}}
	for _, cmd := range manCommands(app) {
		pages = append(pages, manPage{"sunset-" + cmd.Name + ".1", roff(commandManPage(cmd))})
	}
	for _, t := range help.Topics() {
		pages = append(pages, manPage{"sunset-" + t.Name + ".7", roff(topicManPage(t))})
	}
	return pages
}

// manCommands are the commands with a page: the visible ones but help, which is this.
func manCommands(app *ucli.App) []*ucli.Command {
	var out []*ucli.Command
	for _, cmd := range app.VisibleCommands() {
		if cmd.Name != "help" {
			out = append(out, cmd)
		}
	}
	return out
}

// roff is a page's Markdown in roff: go-md2man's, through manRenderer.
func roff(markdown string) string {
	md := md2man.NewRoffRenderer()
	return string(blackfriday.Run([]byte(markdown),
		blackfriday.WithRenderer(manRenderer{md}), blackfriday.WithExtensions(md.GetExtensions())))
}

// manRenderer is go-md2man's renderer with three changes that let groff render every page
// without a warning on an 80-column terminal, and a command copied from a page run: lines are
// not justified (a long command in a sentence cannot be), a table is a list, a row an entry
// (a table of four columns does not fit in 80), and "-" is written \- (roff reads a bare "-"
// as a hyphen, which a terminal shows as U+2010: --format would not paste).
type manRenderer struct{ blackfriday.Renderer }

// RenderHeader starts a page: no hyphenation, as go-md2man means (groff's man macros read
// the HY register at the title and at each paragraph, where they would turn it on again).
func (r manRenderer) RenderHeader(w io.Writer, _ *blackfriday.Node) {
	_, _ = io.WriteString(w, ".nr HY 0\n")
}

// titleSettings follow a page's title (.TH, which resets them): no hyphenation, lines filled
// but not justified.
const titleSettings = "\n.nh\n.ad l"

// RenderNode renders text, code and tables as said above, the rest as go-md2man does.
func (r manRenderer) RenderNode(w io.Writer, node *blackfriday.Node, entering bool) blackfriday.WalkStatus {
	switch node.Type {
	case blackfriday.Text:
		text := roffEscape(node.Literal)
		if bytes.Contains(node.Literal, []byte("://")) {
			text = urlBreaks.Replace(text)
		}
		_, _ = io.WriteString(w, text)
	case blackfriday.Code:
		_, _ = io.WriteString(w, `\fB`+codeBreaks.Replace(roffEscape(node.Literal))+`\fR`)
	case blackfriday.CodeBlock:
		_, _ = io.WriteString(w, "\n.EX\n"+roffEscape(node.Literal)+".EE\n")
	case blackfriday.Table:
		r.writeTable(w, node)
		return blackfriday.SkipChildren
	case blackfriday.Heading:
		status := r.Renderer.RenderNode(w, node, entering)
		if node.Level == 1 && !entering && node.Prev == nil {
			_, _ = io.WriteString(w, titleSettings)
		}
		return status
	default:
		return r.Renderer.RenderNode(w, node, entering)
	}
	return blackfriday.GoToNext
}

// writeTable writes a table as a list: each row an entry tagged with its first cell, the
// other cells under it, each after its column's heading when there are more than two.
func (r manRenderer) writeTable(w io.Writer, table *blackfriday.Node) {
	var rows [][]string
	table.Walk(func(n *blackfriday.Node, entering bool) blackfriday.WalkStatus {
		if n.Type == blackfriday.TableRow && entering {
			rows = append(rows, nil)
		}
		if n.Type != blackfriday.TableCell || !entering {
			return blackfriday.GoToNext
		}
		var cell strings.Builder
		for c := n.FirstChild; c != nil; c = c.Next {
			c.Walk(func(n *blackfriday.Node, entering bool) blackfriday.WalkStatus {
				return r.RenderNode(&cell, n, entering)
			})
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], strings.TrimSpace(cell.String()))
		return blackfriday.SkipChildren
	})
	if len(rows) == 0 {
		return
	}
	head := rows[0]
	_, _ = io.WriteString(w, "\n")
	for _, row := range rows[1:] {
		fmt.Fprintf(w, ".TP\n\\fB%s\\fR\n", row[0])
		for i, cell := range row[1:] {
			switch {
			case cell == "":
			case len(row) == 2:
				fmt.Fprintf(w, "%s\n", cell)
			default:
				fmt.Fprintf(w, "%s: %s\n.br\n", head[i+1], cell)
			}
		}
	}
}

// codeBreaks lets a line break after a comma or a slash of a code span, urlBreaks after a
// slash of text with a URL (\: marks where one may): a JSON line, a path or a URL longer than the page
// has no space to break at.
var (
	codeBreaks = strings.NewReplacer(",", `,\:`, "/", `/\:`)
	urlBreaks  = strings.NewReplacer("/", `/\:`)
)

// roffEscape is text as roff reads it literally: backslashes and minus signs escaped, and a
// line that starts with a control character ("." or "'") kept as text.
func roffEscape(text []byte) string {
	lines := strings.SplitAfter(string(text), "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(strings.ReplaceAll(l, `\`, `\\`), "-", `\-`)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "")
}

// manTitle is a page's title line (.TH): its name, section, the date of the build's commit
// (a page written twice from one build is the same) and the version.
func manTitle(name string, section int) string {
	b := build()
	date, _, _ := strings.Cut(b.Date, "T")
	return fmt.Sprintf("# %s %d %q %q %q\n\n", strings.ToUpper(name), section, date, "sunset "+b.Version, "sunset manual")
}

// appManPage is sunset(1): what `sunset --help` says, the commands and the topics.
func appManPage(app *ucli.App) string {
	var b strings.Builder
	b.WriteString(manTitle("sunset", 1))
	fmt.Fprintf(&b, "## NAME\n\nsunset - %s\n\n", mdEscape(app.Usage))
	b.WriteString("## SYNOPSIS\n\n**sunset** *COMMAND* [*OPTIONS*] [*ARGUMENTS*]\n\n**sunset** **help** [*COMMAND*|*TOPIC*]\n\n")
	fmt.Fprintf(&b, "## DESCRIPTION\n\n%s\n\n## COMMANDS\n\n", mdText(app.Description))
	for _, cmd := range manCommands(app) {
		fmt.Fprintf(&b, "**sunset-%s**(1)\n: %s\n\n", cmd.Name, mdEscape(cmd.Usage))
	}
	b.WriteString("## HELP TOPICS\n\n")
	for _, t := range help.Topics() {
		fmt.Fprintf(&b, "**sunset-%s**(7)\n: %s\n\n", t.Name, mdEscape(t.Summary))
	}
	return b.String()
}

// commandManPage is sunset-CMD(1): the command's --help, section by section.
func commandManPage(cmd *ucli.Command) string {
	var b strings.Builder
	b.WriteString(manTitle("sunset-"+cmd.Name, 1))
	fmt.Fprintf(&b, "## NAME\n\nsunset-%s - %s\n\n", cmd.Name, mdEscape(cmd.Usage))
	synopsis := cmd.UsageText
	if synopsis == "" {
		synopsis = strings.TrimSpace("sunset " + cmd.Name + " [OPTIONS] " + cmd.ArgsUsage)
	}
	fmt.Fprintf(&b, "## SYNOPSIS\n\n```\n%s\n```\n\n", synopsis)
	fmt.Fprintf(&b, "## DESCRIPTION\n\n%s\n\n", mdText(cmp.Or(cmd.Description, cmd.Usage)))
	writeManOptions(&b, cmd.VisibleFlags())
	if list := examples[cmd.Name]; len(list) > 0 {
		b.WriteString("## EXAMPLES\n\n```\n")
		for i, ex := range list {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "# %s\n$ %s\n", ex.what, ex.line)
		}
		b.WriteString("```\n\n")
	}
	b.WriteString("## SEE ALSO\n\n**sunset**(1)")
	topics := learnMore[cmd.Name]
	if help.Has(cmd.Name) {
		topics = append([]string{cmd.Name}, topics...)
	}
	for _, t := range topics {
		fmt.Fprintf(&b, ", **sunset-%s**(7)", t)
	}
	b.WriteString("\n")
	return b.String()
}

// writeManOptions writes the OPTIONS section: each flag as --help shows it (urfave/cli's
// flag text: names and placeholder, then usage and default), under its category's heading.
func writeManOptions(b *strings.Builder, flags []ucli.Flag) {
	if len(flags) == 0 {
		return
	}
	b.WriteString("## OPTIONS\n\n")
	category := "\x00"
	for _, f := range flags {
		if c, ok := f.(ucli.CategorizableFlag); ok && c.GetCategory() != category {
			category = c.GetCategory()
			if category != "" {
				fmt.Fprintf(b, "### %s\n\n", mdEscape(category))
			}
		}
		term, usage, _ := strings.Cut(ucli.FlagStringer(f), "\t")
		fmt.Fprintf(b, "**%s**\n: %s\n\n", mdEscape(term), mdEscape(usage))
	}
}

// topicManPage is sunset-TOPIC(7): the topic as written, its title as the page's NAME, its
// links to other topics as the pages that hold them.
func topicManPage(t help.Topic) string {
	text, _ := help.Markdown(t.Name)
	if _, body, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(text, "# ") {
		text = body
	}
	text = topicManLink.ReplaceAllString(text, "$1 (**sunset-$2**(7))")
	text = repoLink.ReplaceAllString(text, "$1")
	return manTitle("sunset-"+t.Name, 7) + fmt.Sprintf("## NAME\n\nsunset-%s - %s\n\n", t.Name, mdEscape(t.Summary)) + text
}

// topicManLink is a link to another topic, repoLink one into the repository (its text stays).
var (
	topicManLink = regexp.MustCompile(`\[([^\]]+)\]\(([a-z-]+)\.md(?:#[a-z0-9-]*)?\)`)
	repoLink     = regexp.MustCompile(`\[([^\]]+)\]\(\.\./[^)]*\)`)
)

// mdSpecial are the characters Markdown could read as markup in a line of help text.
var mdSpecial = regexp.MustCompile("[\\\\`*_\\[\\]<>#|]")

// mdEscape is text as Markdown that reads as the text itself, with a flag's `PLACEHOLDER`
// quotes dropped as --help drops them.
func mdEscape(text string) string {
	return mdSpecial.ReplaceAllString(strings.ReplaceAll(text, "`", ""), `\$0`)
}

// mdText is a help description as Markdown: its paragraphs kept, and the lines it indents
// (a command line, a comment's syntax) in a code block, as they are.
func mdText(text string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if code := strings.HasPrefix(line, "  "); code != inCode {
			if code {
				b.WriteString("\n```\n")
			} else {
				b.WriteString("```\n\n")
			}
			inCode = code
		}
		if !inCode {
			line = mdEscape(line)
		}
		b.WriteString(line + "\n")
	}
	if inCode {
		b.WriteString("```\n")
	}
	return b.String()
}
