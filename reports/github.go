package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// GitHubAnnotationLimit is how many annotations of one type (error, warning, notice) GitHub
// shows for a step; further ones are dropped silently.
const GitHubAnnotationLimit = 10

// Annotation sizes. GitHub keeps an annotation's title to 255 characters and its message to a
// few thousand, but a line of a thousand is already more than a reader of the log or of the
// pull request takes in: a longer message is cut at a word, says where the whole of it is,
// and keeps its documentation link.
const (
	// GitHubLineLimit is the most characters of an annotation's line (the command, its
	// properties and its escaped message). Only a file path longer than it all can pass it: a
	// path is never cut.
	GitHubLineLimit = 800
	// GitHubTitleLimit is GitHub's limit on an annotation's title.
	GitHubTitleLimit = 255
	// githubMinMessage is the room a message keeps however long the properties are.
	githubMinMessage = 200
)

// GitHub writes GitHub Actions workflow commands, one annotation per finding that is not
// suppressed:
//
//	::error file=infra/waf.tf,line=12,col=1,endLine=18,endColumn=2,title=firewall-rules: Firewall rules API::message
//
// error findings give ::error, warning ::warning, notice ::notice. A live finding has no file,
// so it has no file or line property and its title names the zone (or account) and resource.
// Data is escaped as the runner expects ('%' -> %25, CR -> %0D, LF -> %0A) and property values
// additionally (':' -> %3A, ',' -> %2C), so no user text can end a value or start a command.
//
// GitHub shows at most GitHubAnnotationLimit annotations of each type per step; when a type
// has more, the first nine are written and the tenth says how many more there are. A scan that
// could not read everything gets one ::warning saying so (counted against the warnings). A
// plain summary line closes the output.
//
// With StepSummary set (the caller passes $GITHUB_STEP_SUMMARY; the reporter does not read
// the environment), the Markdown report is appended to that file as the job summary.
type GitHub struct {
	// StepSummary is the path of the job summary file to append the Markdown report to; ""
	// writes none.
	StepSummary string
}

// Write implements Reporter.
func (g GitHub) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	levels := [...]string{"error", "warning", "notice"}
	total := map[string]int{}
	for _, f := range r.Findings.All() {
		if !f.Suppressed {
			total[githubLevel(f.Severity)]++
		}
	}
	// slots[level] is how many findings of a level get their own annotation.
	slots := map[string]int{}
	for _, lv := range levels {
		room := GitHubAnnotationLimit
		if lv == "warning" && r.Summary.Incomplete {
			room-- // the incomplete-scan warning takes one
		}
		if total[lv] > room {
			room-- // the last one says how many more there are
		}
		slots[lv] = room
	}
	written := map[string]int{}
	for _, f := range r.Findings.All() {
		if f.Suppressed {
			continue
		}
		lv := githubLevel(f.Severity)
		if written[lv] == slots[lv] {
			continue
		}
		written[lv]++
		props := githubProps(&f)
		githubCommand(bw, lv, props, githubMessage(&f, githubRoom(lv, props), g.whole()))
	}
	for _, lv := range levels {
		if more := total[lv] - written[lv]; more > 0 {
			noun := lv + "s"
			if more == 1 {
				noun = lv
			}
			msg := fmt.Sprintf("%d more %s not annotated: GitHub shows at most %d annotations of each type per step.", more, noun, GitHubAnnotationLimit)
			msg += " " + capitalise(g.whole()) + " lists them."
			githubCommand(bw, lv, [][2]string{{"title", fmt.Sprintf("sunset: %d more %s", more, noun)}}, msg)
		}
	}
	if r.Summary.Incomplete {
		props := [][2]string{{"title", "sunset: incomplete scan"}}
		githubCommand(bw, "warning", props, fitGitHub(incompleteMessage(r), "", githubRoom("warning", props), g.whole()))
	}
	for _, line := range SkippedLines(r, 0) {
		githubCommand(bw, "notice", [][2]string{{"title", "sunset: files not read"}}, line)
	}
	bw.WriteString(ToolName + ": " + summaryLine(r, newTableStyles(io.Discard, false), 0) + "\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing GitHub annotations: %w", err)
	}
	if g.StepSummary != "" {
		if err := appendStepSummary(g.StepSummary, r); err != nil {
			return err
		}
	}
	return nil
}

// whole is where every finding is said whole: the job summary when one is written.
func (g GitHub) whole() string {
	if g.StepSummary != "" {
		return "the job summary"
	}
	return "the JSON or Markdown report"
}

// githubRoom is how many characters of a line of level with props are left for its message.
func githubRoom(level string, props [][2]string) int {
	n := len("::") + len(level) + len("::")
	for _, p := range props {
		n += 1 + len(p[0]) + 1 + utf8.RuneCountInString(escapeGitHubProperty(p[1]))
	}
	return max(GitHubLineLimit-n, githubMinMessage)
}

// appendStepSummary appends the Markdown report to the job summary file.
func appendStepSummary(path string, r *Report) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("writing job summary: %w", err)
	}
	werr := (Markdown{}).Write(f, r)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("writing job summary: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("writing job summary: %w", cerr)
	}
	return nil
}

// githubLevel maps a severity to a workflow command.
func githubLevel(s scanner.Severity) string {
	switch s {
	case scanner.SeverityError:
		return "error"
	case scanner.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// githubProps are the properties of a finding's annotation, in the order GitHub documents.
func githubProps(f *scanner.Finding) [][2]string {
	var props [][2]string
	rule := textsafe.Sanitize(string(f.RuleID))
	if l := f.Location; l != nil && l.Path != "" {
		props = append(props, [2]string{"file", slashPath(stripControls(l.Path))})
		if l.StartLine > 0 {
			props = append(props, [2]string{"line", strconv.Itoa(l.StartLine)})
			if l.StartColumn > 0 {
				props = append(props, [2]string{"col", strconv.Itoa(l.StartColumn)})
			}
			if l.EndLine >= l.StartLine {
				props = append(props, [2]string{"endLine", strconv.Itoa(l.EndLine)})
			}
			if l.EndColumn > 0 && l.EndLine >= l.StartLine {
				props = append(props, [2]string{"endColumn", strconv.Itoa(l.EndColumn)})
			}
		}
		title := rule
		if t := textsafe.Sanitize(f.Title); t != "" {
			title += ": " + t
		}
		return append(props, [2]string{"title", truncateRunes(title, GitHubTitleLimit)})
	}
	// No file: the title says where the finding is.
	place := ""
	switch {
	case f.ZoneName != "" || f.ZoneID != "":
		place = "zone " + textsafe.Sanitize(orElse(f.ZoneName, f.ZoneID))
	case f.AccountID != "":
		place = "account " + textsafe.Sanitize(f.AccountID)
	}
	parts := []string{}
	for _, p := range []string{place, resourceLabel(f)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	title := rule
	if len(parts) > 0 {
		title += ": " + strings.Join(parts, ", ")
	}
	return append(props, [2]string{"title", truncateRunes(title, GitHubTitleLimit)})
}

// githubMessage is the message, then on a second line what it does not say already of the
// end of life and the replacement (a file finding's message says "Use instead: ..."), and
// the documentation link. A message the line has no room for (see GitHubLineLimit; room is
// what the command and its properties leave) is cut at a word and says where the whole is
// (whole); the link stays.
func githubMessage(f *scanner.Finding, room int, whole string) string {
	msg := orElse(textsafe.Sanitize(f.Message), orElse(textsafe.Sanitize(f.Title), textsafe.Sanitize(string(f.RuleID))))
	var facts []string
	if eol := textsafe.Sanitize(f.EndOfLife); eol != "" && !strings.Contains(msg, eol) {
		facts = append(facts, sentence("End of life: "+eol))
	}
	if rep := textsafe.Sanitize(f.Replacement); rep != "" && !strings.Contains(msg, rep) {
		facts = append(facts, sentence("Replacement: "+rep))
	}
	doc := ""
	if u := absoluteURL(f.DocURL); u != "" {
		doc = "Documentation: " + u
	}
	text := msg
	if all := strings.TrimSpace(strings.Join(append(facts, doc), " ")); all != "" {
		text += "\n" + all
	}
	return fitGitHub(text, doc, room, whole)
}

// fitGitHub is text when it takes at most room characters on the line; else text cut at a
// word, saying where the whole of it is (whole), then doc (a link, "" for none) whole.
func fitGitHub(text, doc string, room int, whole string) string {
	if escapedLen(text) <= room {
		return text
	}
	tail := "… (cut: the whole message is in " + whole + ")"
	if doc != "" {
		tail += "\n" + doc
	}
	return cutAtWord(text, room-escapedLen(tail)) + tail
}

// escapedLen is how many characters s takes on a workflow command's line.
func escapedLen(s string) int {
	return utf8.RuneCountInString(escapeGitHubData(s))
}

// cutAtWord is the longest start of s, ended before a space, that takes at most n
// characters on the line (a word longer than that is cut inside).
func cutAtWord(s string, n int) string {
	if n <= 0 {
		return ""
	}
	cut := truncateRunes(s, n+1) // n runes and the "…" truncateRunes adds, taken off below
	cut = strings.TrimSuffix(cut, "…")
	for escapedLen(cut) > n {
		_, size := utf8.DecodeLastRuneInString(cut)
		cut = cut[:len(cut)-size]
	}
	if i := strings.LastIndexAny(cut, " \n"); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:")
}

// sentence ends s with a full stop unless it ends a sentence already ("custom.account." is
// not followed by a second one).
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// incompleteMessage lists what could not be read, up to ten parts.
func incompleteMessage(r *Report) string {
	if len(r.Errors) == 0 {
		return "Some zones or files could not be read; findings may be missing."
	}
	lines := []string{Plural(len(r.Errors), "part", "parts") + " of the scan could not be read; findings there may be missing:"}
	for i, e := range r.Errors {
		if i == GitHubAnnotationLimit {
			lines = append(lines, fmt.Sprintf("…and %d more.", len(r.Errors)-i))
			break
		}
		lines = append(lines, "- "+errorLine(e))
	}
	return strings.Join(lines, "\n")
}

// githubCommand writes one workflow command line.
func githubCommand(w *bufio.Writer, level string, props [][2]string, msg string) {
	w.WriteString("::")
	w.WriteString(level)
	for i, p := range props {
		if i == 0 {
			w.WriteByte(' ')
		} else {
			w.WriteByte(',')
		}
		w.WriteString(p[0])
		w.WriteByte('=')
		w.WriteString(escapeGitHubProperty(p[1]))
	}
	w.WriteString("::")
	w.WriteString(escapeGitHubData(msg))
	w.WriteByte('\n')
}

// escapeGitHubData escapes a workflow command's message the way the runner unescapes it.
func escapeGitHubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeGitHubProperty escapes a workflow command's property value: as data, plus ':' and ','
// which would end the value.
func escapeGitHubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// stripControls drops C0 and C1 controls from a path: the runner cannot unescape them, and an
// escape sequence in the log would be interpreted by the log viewer.
func stripControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}
