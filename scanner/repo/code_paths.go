package repo

import (
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// pathKeys are the names of keyword arguments and object keys whose value is a path or URL.
var pathKeys = map[string]bool{"endpoint": true, "path": true, "url": true, "uri": true, "route": true, "resource": true, "resourcepath": true, "urlpath": true, "href": true}

// paths reports the API paths the file's string values spell: a whole path (from a scope
// such as zones/<id>/, with or without scheme, host and /client/v4) counts by itself; a
// fragment relative to a base the code keeps elsewhere ("/firewall/rules",
// "settings/cname_flattening", endpoint: "organizations") counts only with evidence that
// the file or the call talks to this API (see README "Evidence").
func (d *codeDetector) paths(cx *codeContext, add func(hit)) {
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		segs, ok := pathSegments(s.Value)
		if !ok || s.Comment {
			continue
		}
		if settingByName(segs) && (d.scopes[segs[0]] || d.fragmentCounts(cx, s, segs)) {
			cx.settingCalls = true
		}
		matches := d.matchBuilt(cx, segs, false)
		whole := len(matches) > 0 && d.scopes[segs[0]]
		if !whole {
			if !d.fragmentCounts(cx, s, segs) {
				continue
			}
			matches = d.matchBuilt(cx, segs, true)
		}
		if len(matches) > 0 {
			d.pathHit(cx, i, matches, add)
		}
	}
}

// settingByName reports whether segs are the path of one zone setting whose name the code
// holds in a value (zones/<id>/settings/<name>, or settings/<name> relative to a zone).
func settingByName(segs []string) bool {
	n := len(segs)
	return n >= 2 && segs[n-2] == "settings" && segs[n-1] == catalog.Unknown && (n == 2 || n == 4)
}

// matchBuilt is catalog.MatchBuilt, memoized for the file, without the endpoints that are
// only affected (no path alone reports them).
func (d *codeDetector) matchBuilt(cx *codeContext, segs []string, tail bool) []catalog.RouteMatch {
	key := strings.Join(segs, "/")
	if tail {
		key = "tail " + key
	}
	if ms, ok := cx.routes[key]; ok {
		return ms
	}
	var ms []catalog.RouteMatch
	for _, m := range d.cat.MatchBuilt(segs, tail) {
		if !m.Endpoint.Affected {
			ms = append(ms, m)
		}
	}
	cx.routes[key] = ms
	return ms
}

// fragmentCounts says whether a fragment stands as a path of this API: the file talks to the
// API (or the call carries a zone or account id), and the value looks like a path: it holds
// a "/", is given to a path-like key, or is the first argument of an HTTP call.
func (d *codeDetector) fragmentCounts(cx *codeContext, s *code.Str, segs []string) bool {
	if !cx.talksToAPI && !callCarriesScope(cx, s) {
		return false
	}
	if strings.Contains(strings.ReplaceAll(s.Value, code.HoleString, ""), "/") {
		return true
	}
	if pathKeys[normName(s.Key)] {
		return true
	}
	return s.Call >= 0 && s.Arg == 0 && cx.methodOfCall(s.Call) != "" && clientish(cx.f.Calls[s.Call])
}

// clientWords name the receivers of HTTP calls: a bare word passed to client.get(...) is a
// path, one passed to a dictionary's get(...) is a key.
var clientWords = []string{"client", "http", "api", "session", "conn", "request", "rest", "cf", "cloudflare"}

// clientish reports whether a call goes through something named like an HTTP client.
func clientish(c code.Call) bool {
	for _, el := range c.Callee[:max(len(c.Callee)-1, 0)] {
		el = strings.ToLower(el)
		for _, w := range clientWords {
			if el == w || strings.HasPrefix(el, w) || strings.HasSuffix(el, w) {
				return true
			}
		}
	}
	return false
}

// callCarriesScope: the value names a zone or account id in its holes, or the call it is
// passed to names one (callNamesScope), its own name included (getZoneSetting, cf_api):
// a project's helper of that name, defined in a file the check may never see, puts the
// fragment under a zone or account of this API.
func callCarriesScope(cx *codeContext, s *code.Str) bool {
	return namesScope(s.HoleNames) || s.Call >= 0 && callNamesScope(cx, s.Call)
}

// helperWords are the words of a helper's name that put its path under this API: the scopes
// paths start from and the API's short names.
var helperWords = []string{"zone", "zones", "account", "accounts", "cf", "cloudflare"}

// scopedHelper reports whether a called name holds one of helperWords as a word of its own
// (getZoneSetting, zone_api, CfRequest; not getTimezone, dropzone or cfg).
func scopedHelper(callee []string) bool {
	for _, el := range callee {
		if eachWord(el, func(w string) bool { return equalFoldAny(w, helperWords) }) {
			return true
		}
	}
	return false
}

func equalFoldAny(w string, words []string) bool {
	for _, x := range words {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// nameWords splits a name written in camelCase, PascalCase, snake_case or kebab-case into
// its lowercase words: getZoneSetting is get, zone, setting; HTTPClient is http, client.
func nameWords(name string) []string {
	var words []string
	eachWord(name, func(w string) bool { words = append(words, strings.ToLower(w)); return false })
	return words
}

// eachWord calls f with each word of name as written (see nameWords), until f returns true;
// it reports whether one did. It allocates nothing: it runs on every call of a file.
func eachWord(name string, f func(string) bool) bool {
	start := 0
	for i := 0; i <= len(name); i++ {
		end := i == len(name)
		if !end {
			c := name[i]
			sep := c == '_' || c == '-' || c == '$' || c == ':'
			camel := isUpper(c) && i > start && (!isUpper(name[i-1]) || i+1 < len(name) && isLower(name[i+1]))
			if !sep && !camel {
				continue
			}
			if i > start && f(name[start:i]) {
				return true
			}
			start = i
			if sep {
				start = i + 1
			}
			continue
		}
		if i > start && f(name[start:i]) {
			return true
		}
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// helperTalksToAPI is file-level evidence found in the code itself: the file hands a path
// (a value holding "/") to a helper that names a zone, an account or the API
// (getZoneSetting(auth, "/firewall/rules")), so its other path fragments, handed to helpers
// of any name (sendPostRequest(body, "/filters")), are this API's too.
func helperTalksToAPI(f *code.File) bool {
	for i := range f.Strings {
		s := &f.Strings[i]
		if s.Call >= 0 && strings.Contains(s.Value, "/") && scopedHelper(f.Calls[s.Call].Callee) {
			if _, ok := pathSegments(s.Value); ok {
				return true
			}
		}
	}
	return false
}

// pathSegments splits a value into path segments relative to the v4 base: a scheme and
// host, a leading hole (a base URL held elsewhere), a "client/v4" prefix, a query and a
// fragment are dropped; a segment holding a hole or written as a placeholder (:zone_id,
// {zone_id}, <zone_id>, <your zone id>, [ZONE ID], $ZONE, %s) is catalog.Unknown, and so is
// an empty segment between two others: "zones/" + zone + "/filters" with a constant left
// empty for the user to fill in is still a path with a hole. false when the value is not a
// path at all (spaces or quotes outside a placeholder, no literal segment).
func pathSegments(v string) ([]string, bool) {
	if i := strings.Index(v, "://"); i >= 0 {
		rest := v[i+3:]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return nil, false
		}
		v = rest[j:]
	}
	v = strings.TrimPrefix(v, code.HoleString)
	if i := strings.IndexAny(v, "?#"); i >= 0 {
		v = v[:i]
	}
	v = bracketedHoles(v)
	if v == "" || strings.ContainsAny(v, " \t\r\n\"'`()[];|&\\,*") {
		return nil, false
	}
	parts := strings.Split(strings.TrimLeft(v, "/"), "/")
	segs := make([]string, 0, len(parts))
	for i, p := range parts {
		switch {
		case p != "":
			segs = append(segs, p)
		case i < len(parts)-1 && len(segs) > 0:
			segs = append(segs, code.HoleString) // an empty value between two segments
		}
	}
	if len(segs) >= 2 && segs[0] == "client" && segs[1] == "v4" {
		segs = segs[2:]
	}
	literal := false
	for i, s := range segs {
		if isPlaceholderSegment(s) {
			segs[i] = catalog.Unknown
		} else {
			literal = true
		}
	}
	return segs, literal && len(segs) > 0
}

// bracketedHoles turns each placeholder written between brackets inside one segment
// (<your zone id>, [ZONE ID], {zone id}) into a hole, so that the spaces a placeholder for
// the user may hold do not make the value prose.
func bracketedHoles(v string) string {
	if !strings.ContainsAny(v, "<[{") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if closer := closingBracket(v[i]); closer != 0 {
			if j := strings.IndexByte(v[i+1:], closer); j > 0 && !strings.ContainsAny(v[i+1:i+1+j], "/<[{") {
				b.WriteString(code.HoleString)
				i += j + 1
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func closingBracket(c byte) byte {
	switch c {
	case '<':
		return '>'
	case '[':
		return ']'
	case '{':
		return '}'
	}
	return 0
}

// isPlaceholderSegment: a segment whose value the text does not give.
func isPlaceholderSegment(s string) bool {
	if strings.Contains(s, code.HoleString) {
		return true
	}
	switch {
	case isPatternParam(s), strings.HasPrefix(s, "$"), strings.HasPrefix(s, "%"), strings.HasPrefix(s, "{{"):
		return true
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		return true
	}
	return false
}

// pathHit reports the value s (index i) as a call of the matched endpoints, once per rule,
// with the method the code uses when it says (the endpoint taking it preferred).
func (d *codeDetector) pathHit(cx *codeContext, i int, matches []catalog.RouteMatch, add func(hit)) {
	s := &cx.f.Strings[i]
	method := cx.methodOf(i)
	shown := strings.ReplaceAll(s.Value, code.HoleString, "{…}")
	reported := map[vocab.RuleID]bool{}
	for _, m := range preferMethod(matches, method) {
		if m.Endpoint.Affected || reported[m.Entry.ID] || !takesMethod(m.Endpoint.Methods, method) {
			continue
		}
		reported[m.Entry.ID] = true
		cx.settingCalls = cx.settingCalls || m.Entry.ID == vocab.ZoneSettingsBulk
		key := string(m.Entry.ID) + " " + m.Endpoint.Path
		if at, ok := cx.lastAt[key]; ok && s.Pos.Line-at <= 2 {
			continue
		}
		cx.lastAt[key] = s.Pos.Line
		verb := method
		if verb == "" {
			verb = strings.Join(m.Endpoint.Methods, "|")
		}
		add(hit{
			rule:       m.Entry.ID,
			kind:       "endpoint",
			id:         verb + " " + m.Endpoint.Path,
			name:       clip(shown, 120),
			address:    "code " + method + " " + m.Endpoint.Path + " " + shown,
			msg:        "calls " + verb + " " + m.Endpoint.Path + " (built as " + clip(shown, 120) + ")",
			loc:        strLocation(s),
			shadow:     true,
			postsRules: postsRules(m.Entry.ID, method),
		})
	}
}

// postsRules reports whether a call with method to an endpoint of rule writes rules of the
// filters or firewall rules API: what makes the rule objects of the repository firewall
// rules (see postedRules).
func postsRules(rule vocab.RuleID, method string) bool {
	return (rule == vocab.FirewallRules || rule == vocab.Filters) && (method == "POST" || method == "PUT" || method == "PATCH")
}

// takesMethod reports whether a call with method reaches an endpoint taking methods: any
// method the code does not say, one the endpoint takes, or an update written with the other
// verb (PATCH for an endpoint updated with PUT, and the reverse: clients mix them, and the
// request still reaches the deprecated route). A read of a write-only route is not its call.
func takesMethod(methods []string, method string) bool {
	switch {
	case method == "", slices.Contains(methods, method):
		return true
	case method == "PATCH":
		return slices.Contains(methods, "PUT")
	case method == "PUT":
		return slices.Contains(methods, "PATCH")
	}
	return false
}

// preferMethod puts the endpoints that take method first (stable otherwise).
func preferMethod(ms []catalog.RouteMatch, method string) []catalog.RouteMatch {
	if method == "" {
		return ms
	}
	out := make([]catalog.RouteMatch, 0, len(ms))
	for _, m := range ms {
		if slices.Contains(m.Endpoint.Methods, method) {
			out = append(out, m)
		}
	}
	for _, m := range ms {
		if !slices.Contains(m.Endpoint.Methods, method) {
			out = append(out, m)
		}
	}
	return out
}

func strLocation(s *code.Str) scanner.Location {
	end := s.End
	if end.Line < s.Pos.Line {
		end = s.Pos
	}
	return scanner.Location{StartLine: s.Pos.Line, StartColumn: s.Pos.Col, EndLine: end.Line, EndColumn: end.Col}
}

// methodOf returns the HTTP method the code uses with string i: that of the call it is
// passed to, or, for a value assigned to a variable, of the first later call the variable is
// passed to; "" when the code does not say.
func (cx *codeContext) methodOf(i int) string {
	s := &cx.f.Strings[i]
	if s.Call >= 0 {
		return cx.methodOfCall(s.Call)
	}
	if s.Assigned == "" {
		return ""
	}
	for ci, c := range cx.f.Calls {
		if c.Pos.Line < s.Pos.Line || (c.Pos.Line == s.Pos.Line && c.Pos.Col < s.Pos.Col) {
			continue
		}
		if slices.Contains(c.ArgIdents, s.Assigned) {
			return cx.methodOfCall(ci)
		}
	}
	return ""
}

// methodOfCall returns the HTTP method a call names: its own name (requests.post,
// $client->patch), a method string among its arguments ("DELETE", method: 'POST', curl -X
// PUT) or an identifier such as http.MethodDelete.
func (cx *codeContext) methodOfCall(ci int) string {
	c := &cx.f.Calls[ci]
	if m := methodName(c.Name(), true); m != "" {
		return m
	}
	for _, j := range cx.byCall[ci] {
		s := &cx.f.Strings[j]
		if m := methodName(s.Value, normName(s.Key) == "method"); m != "" {
			return m
		}
	}
	for _, id := range c.ArgIdents {
		if m := methodName(id, false); m != "" {
			return m
		}
	}
	return ""
}
