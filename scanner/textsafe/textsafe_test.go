package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "firewall rule block bots", "firewall rule block bots"},
		{"empty", "", ""},
		{"sgr colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"cursor and erase", "a\x1b[2J\x1b[1;1Hb", "ab"},
		{"osc title with BEL", "x\x1b]0;pwned\x07y", "xy"},
		{"osc hyperlink with ST", "\x1b]8;;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"unterminated osc swallows the rest", "ok\x1b]0;never ends", "ok"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"escape with intermediate", "a\x1b(Bb", "ab"},
		{"trailing lone escape", "a\x1b", "a"},
		{"eight-bit csi", "a\u009b2Jb", "a2Jb"},
		{"carriage return", "visible\rhidden", "visible hidden"},
		{"newlines and tabs", "one\ntwo\tthree\r\nfour", "one two three four"},
		{"spaces collapse and trim", "  a   b  ", "a b"},
		{"other controls dropped", "a\x00b\x07c\x08d\x7fe", "abcde"},
		{"bidi override dropped", "abc\u202edcba\u202c", "abcdcba"},
		{"bidi isolate dropped", "\u2066x\u2069", "x"},
		{"line separator", "a\u2028b", "a b"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"unicode kept", "zöne 例え.jp", "zöne 例え.jp"},
		{"non-breaking space kept", "a\u00a0b", "a\u00a0b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// checkSafe fails when s holds anything a terminal would interpret, or a field/row break.
func checkSafe(t testing.TB, in, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, s)
	}
	for _, r := range s {
		if IsControl(r) {
			t.Fatalf("Sanitize(%q) = %q: keeps %U", in, s, r)
		}
	}
	// Spaces as Sanitize folds them (isSpace): a no-break space is text it keeps, not
	// white space it trims.
	if s != strings.TrimFunc(s, isSpace) || strings.Contains(s, "  ") {
		t.Fatalf("Sanitize(%q) = %q: untrimmed or double spaces", in, s)
	}
}

func TestBlock(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "line 1\n\tline 2", "line 1\n\tline 2"},
		{"empty", "", ""},
		{"crlf and cr", "a\r\nb\rc", "a\nb\nc"},
		{"whole escape sequences", "line\x1b[31m red\x1b[0m", "line red"},
		{"osc hyperlink", "\x1b]8;;http://evil\x07link", "link"},
		{"controls and bidi dropped", "a\x00b\u202ec\u0085d\u2028e\x7f", "abcde"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"spaces kept", "  a   b  ", "  a   b  "},
		{"forged command stays a line of data", "x\n::error::FORGED", "x\n::error::FORGED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Block(tt.in); got != tt.want {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]0;t\x07", "a\r\nb\tc", "\u202e", "\xff\xfe", "\x1bP+q\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		checkSafe(t, in, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
	})
}

func FuzzBlock(f *testing.F) {
	for _, s := range []string{"plain\n\tindented", "\x1b[31mred", "\x1b]0;t\x07", "a\r\nb\rc", "\u202e", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Block(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Block(%q) = %q: invalid UTF-8", in, out)
		}
		for _, r := range out {
			if IsControl(r) && r != '\n' && r != '\t' {
				t.Fatalf("Block(%q) = %q: keeps %U", in, out, r)
			}
		}
		if again := Block(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
	})
}

func BenchmarkSanitize(b *testing.B) {
	clean := strings.TrimSpace(strings.Repeat("Firewall rule uses the retired API; ", 4)) // the fast path
	dirty := strings.Repeat("Firewall \x1b[31mrule\x1b[0m\tuses\r\nthe API; ", 4)
	b.Run("clean", func(b *testing.B) {
		for b.Loop() {
			Sanitize(clean)
		}
	})
	b.Run("dirty", func(b *testing.B) {
		for b.Loop() {
			Sanitize(dirty)
		}
	})
}
