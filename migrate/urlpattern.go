package migrate

import (
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// urlCondition turns a previous-version URL pattern (host and path with * wildcards, as in
// rate limit match.request.url, bypass urls and WAF override urls) into a Rules language
// condition on http.host and http.request.uri.path, read as the support article 'Why doesn't
// my Rate Limiting rule match a request?' documents the old rate limit matcher:
//   - a pattern with a scheme (https://...), a query string (?...) or an anchor (#...)
//     matched no request: never says which, and the condition is of the pattern without them;
//   - a bare host is the homepage: "example.com" is "example.com/", path "/" only;
//   - otherwise the path is matched as written (a trailing slash counts; "/path*" is the path
//     and everything under it), and a request's query is never matched.
//
// Host and path use `wildcard` (case-insensitive, whole value), as domain-facts maps them,
// also without a *; the host is lowercased. Derived: an empty or * host is no host condition,
// a path of /* no path condition, and a host with a * and no path no path condition (the *
// may span into the path). It returns "" when the pattern matches every request.
func urlCondition(pattern string) (cond, never string, notes []string) {
	p := strings.TrimSpace(pattern)
	var why []string
	if i := strings.Index(p, "://"); i >= 0 && !strings.Contains(p[:i], "/") {
		p, why = p[i+len("://"):], append(why, "a scheme")
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		what := "a query string"
		if p[i] == '#' {
			what = "an anchor"
		}
		p, why = p[:i], append(why, what)
	}
	if len(why) > 0 {
		never = "included " + strings.Join(why, " and ")
	}
	host, path, hasPath := strings.Cut(p, "/")
	host, path = strings.ToLower(host), "/"+path
	var parts []string
	if host != "" && host != "*" {
		parts = append(parts, "http.host wildcard "+expr.Quote(wildcardLiteral(host)))
	}
	switch {
	case !hasPath && host == "":
	case !hasPath && strings.Contains(host, "*"):
		if host != "*" {
			notes = append(notes, fmt.Sprintf("%q has a * and no path: read as any path, as the * may span into it (derived)", pattern))
		}
	case !hasPath:
		parts = append(parts, `http.request.uri.path wildcard "/"`)
		notes = append(notes, fmt.Sprintf("%q has no path: the homepage only (path /), as %q/ is", pattern, p))
	case path != "/*":
		parts = append(parts, "http.request.uri.path wildcard "+expr.Quote(wildcardLiteral(path)))
	}
	return strings.Join(parts, " and "), never, notes
}

// wildcardLiteral escapes the backslashes of an old pattern, which had no escapes: in a
// wildcard only * is special, and \ escapes it.
func wildcardLiteral(s string) string {
	return strings.ReplaceAll(s, `\`, `\\`)
}

// anyOf joins conditions with "or", parenthesising each when there are several.
func anyOf(conds []string) string {
	switch len(conds) {
	case 0:
		return ""
	case 1:
		return conds[0]
	}
	out := make([]string, len(conds))
	for i, c := range conds {
		out[i] = "(" + c + ")"
	}
	return strings.Join(out, " or ")
}

// allOf joins non-empty conditions with "and", parenthesising those that contain "or".
func allOf(conds ...string) string {
	var out []string
	for _, c := range conds {
		if c == "" {
			continue
		}
		if strings.Contains(c, " or ") && (!strings.HasPrefix(c, "not (") || !strings.HasSuffix(c, ")")) {
			c = "(" + c + ")"
		}
		out = append(out, c)
	}
	return strings.Join(out, " and ")
}
