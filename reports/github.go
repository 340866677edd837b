package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// GitHubAnnotationLimit is how many annotations of one type (error, warning, notice) GitHub
// shows for a step; further ones are dropped silently.
const GitHubAnnotationLimit = 10

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
		githubCommand(bw, lv, githubProps(&f), githubMessage(&f))
	}
	for _, lv := range levels {
		if more := total[lv] - written[lv]; more > 0 {
			noun := lv + "s"
			if more == 1 {
				noun = lv
			}
			msg := fmt.Sprintf("%d more %s not annotated: GitHub shows at most %d annotations of each type per step.", more, noun, GitHubAnnotationLimit)
			if g.StepSummary != "" {
				msg += " The job summary lists them."
			} else {
				msg += " The JSON or Markdown report lists them."
			}
			githubCommand(bw, lv, [][2]string{{"title", fmt.Sprintf("sunset: %d more %s", more, noun)}}, msg)
		}
	}
	if r.Summary.Incomplete {
		githubCommand(bw, "warning", [][2]string{{"title", "sunset: incomplete scan"}}, incompleteMessage(r))
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
		return append(props, [2]string{"title", title})
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
	return append(props, [2]string{"title", title})
}

// githubMessage is the message, then the end of life, replacement and documentation link on
// a second line.
func githubMessage(f *scanner.Finding) string {
	msg := orElse(textsafe.Sanitize(f.Message), orElse(textsafe.Sanitize(f.Title), textsafe.Sanitize(string(f.RuleID))))
	var facts []string
	if eol := textsafe.Sanitize(f.EndOfLife); eol != "" {
		facts = append(facts, sentence("End of life: "+eol))
	}
	if rep := textsafe.Sanitize(f.Replacement); rep != "" {
		facts = append(facts, sentence("Replacement: "+rep))
	}
	if u := absoluteURL(f.DocURL); u != "" {
		facts = append(facts, "Documentation: "+u)
	}
	if len(facts) > 0 {
		msg += "\n" + strings.Join(facts, " ")
	}
	return msg
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
