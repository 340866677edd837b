package migrate

import (
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// urlCondition turns a previous-version URL pattern (host and path with * wildcards, as in
// rate limit match.request.url, bypass urls and WAF override urls) into a Rules language
// condition on http.host and http.request.uri.path. Derived, per domain-facts:
//   - a scheme prefix (http://, https://) is dropped: schemes are matched separately;
//   - the host part: "" or "*" is no condition; with a * it is `http.host wildcard "..."`,
//     else `http.host eq "..."` (lowercased: hosts are case-insensitive);
//   - the path part: none is read as every path of the host (the old API matched a bare
//     host on all its paths after normalisation); with a * it is
//     `http.request.uri.path wildcard "..."` (case-insensitive, like the old matcher), else
//     `http.request.uri.path eq "..."`; a query string is dropped (the old matcher ignored it).
//
// It returns "" when the pattern matches everything, and the notes worth telling.
func urlCondition(pattern string) (cond string, notes []string) {
	p := strings.TrimSpace(pattern)
	for _, scheme := range []string{"https://", "http://"} {
		if len(p) >= len(scheme) && strings.EqualFold(p[:len(scheme)], scheme) {
			p = p[len(scheme):]
			notes = append(notes, fmt.Sprintf("the scheme of %q is dropped: schemes are matched by the scheme condition", pattern))
			break
		}
	}
	host, path, hasPath := strings.Cut(p, "/")
	if hasPath {
		path = "/" + path
	}
	if q, _, found := strings.Cut(path, "?"); found {
		path = q
		notes = append(notes, fmt.Sprintf("the query string of %q is dropped (queries were never matched)", pattern))
	}
	host = strings.ToLower(host)
	var parts []string
	switch {
	case host == "" || host == "*":
	case strings.Contains(host, "*"):
		parts = append(parts, "http.host wildcard "+expr.Quote(host))
	default:
		parts = append(parts, "http.host eq "+expr.Quote(host))
	}
	switch {
	case !hasPath || path == "/*" || path == "*":
		if !hasPath && host != "" && host != "*" {
			notes = append(notes, fmt.Sprintf("%q has no path: read as every path of the host (derived)", pattern))
		}
	case strings.Contains(path, "*"):
		parts = append(parts, "http.request.uri.path wildcard "+expr.Quote(path))
	default:
		parts = append(parts, "http.request.uri.path eq "+expr.Quote(path))
	}
	return strings.Join(parts, " and "), notes
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
