package migrate

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMarkdownTextIsOneSafeLine: what plan.md writes inline (EscapeMarkdownAs, code spans)
// and in its diff entries holds no line break, escape sequence or control character, so no
// line of plan.md is a forged CI command or recolours a terminal that shows it.
func TestMarkdownTextIsOneSafeLine(t *testing.T) {
	in := "\x1b[31mred\x1b[0m \x1b]8;;http://evil\x07link x\n::error file=a.tf,line=1::FORGED\r\u202e"
	for name, got := range map[string]string{
		"EscapeMarkdown":   EscapeMarkdown(in),
		"EscapeMarkdownAs": EscapeMarkdownAs(in, MarkdownComment|MarkdownLineStart),
		"code":             code(in),
	} {
		if strings.ContainsAny(got, "\x1b\x07\r\n\u202e") {
			t.Errorf("%s(%q) = %q", name, in, got)
		}
		if !strings.Contains(got, "red link x ::error") {
			t.Errorf("%s(%q) = %q: the visible text is gone", name, in, got)
		}
	}
	if got, want := oneLine(in), `red link x\n::error file=a.tf,line=1::FORGED\r`; got != want {
		t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
	}
	if got := EscapeMarkdown("plain *text*  with  spaces"); got != `plain \*text\* with spaces` {
		t.Errorf("EscapeMarkdown of plain text = %q", got)
	}
}

// TestRequestBodyControlsEscaped: a raw C1 or bidi control in a request body (JSON allows
// them inside strings) is written as \uXXXX in plan.md, which means the same string.
func TestRequestBodyControlsEscaped(t *testing.T) {
	body := "{\n  \"description\": \"a\u009b2Jb\u202ec ok\"\n}"
	got := escapeControls(body)
	if want := "{\n  \"description\": \"a\\u009b2Jb\\u202ec ok\"\n}"; got != want {
		t.Fatalf("escapeControls = %q, want %q", got, want)
	}
	var a, b map[string]string
	if json.Unmarshal([]byte(body), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || a["description"] != b["description"] {
		t.Errorf("the escaped body means something else: %q vs %q", a, b)
	}
}
