package verify

import "testing"

// TestURLMatches: the old matcher as the support article 'Why doesn't my Rate Limiting rule
// match a request?' documents it.
func TestURLMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, host, path string
		want                bool
	}{
		{"", "a.example", "/x", true},
		{"*", "a.example", "/x", true},
		{"example.com", "example.com", "/", true},
		{"example.com", "example.com", "/path", false},
		{"example.com/", "example.com", "/", true},
		{"example.com/path", "example.com", "/path", true},
		{"example.com/path", "example.com", "/path/", false},
		{"example.com/path/", "example.com", "/path", false},
		{"example.com/path*", "example.com", "/path/sub", true},
		{"Example.com/Path", "EXAMPLE.com", "/pATH", true},
		{"example.com*", "example.com", "/any", true},
		{"*.example.com", "a.example.com", "/any", true},
		{"https://example.com/*", "example.com", "/", false},
		{"example.com/path?foo=bar", "example.com", "/path", false},
		{"example.com/path#section", "example.com", "/path", false},
		{`example.com/a\*`, "example.com", `/a\b`, true},
	} {
		if got := urlMatches(c.pattern, c.host, c.path); got != c.want {
			t.Errorf("urlMatches(%q, %q, %q) = %t, want %t", c.pattern, c.host, c.path, got, c.want)
		}
	}
}
