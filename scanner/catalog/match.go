package catalog

import (
	"slices"
	"strings"
)

// RouteMatch is one endpoint of an entry that a concrete request matched. Endpoint.Affected
// tells whether the route itself is retired or only carries a deprecated part.
type RouteMatch struct {
	Entry    Entry
	Endpoint Endpoint
}

// route is a compiled endpoint pattern: literal segments, or "" for a parameter.
type route struct {
	entry    int // index into Catalog.entries
	endpoint int // index into the entry's Match.Endpoints
	segs     []string
	methods  []string
}

// compileRoutes precompiles every endpoint pattern, grouped by segment count, so a lookup only
// compares patterns of the right length.
func compileRoutes(entries []Entry) map[int][]route {
	idx := map[int][]route{}
	for i, e := range entries {
		for j, ep := range e.Match.Endpoints {
			segs := splitPath(ep.Path)
			for k, s := range segs {
				if strings.HasPrefix(s, ":") || (strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")) {
					segs[k] = ""
				}
			}
			idx[len(segs)] = append(idx[len(segs)], route{entry: i, endpoint: j, segs: segs, methods: ep.Methods})
		}
	}
	return idx
}

// splitPath splits a path into its non-empty segments.
func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// NormalizePath turns what a script or log holds into a path relative to the v4 base: it drops
// a scheme and host, a query string and fragment, the "/client/v4" prefix, doubled and trailing
// slashes. "https://api.example/client/v4/zones/1/settings/?a=b" becomes "/zones/1/settings".
func NormalizePath(p string) string {
	p = strings.TrimSpace(p)
	if i := strings.Index(p, "://"); i >= 0 {
		rest := p[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			p = rest[j:]
		} else {
			p = "/"
		}
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	segs := splitPath(p)
	if len(segs) >= 2 && segs[0] == "client" && segs[1] == "v4" {
		segs = segs[2:]
	}
	return "/" + strings.Join(segs, "/")
}

// match returns the routes matching method and path, ordered by entry (the entries are sorted
// by id) and then by path pattern.
func (c *Catalog) match(method, path string) []*route {
	method = strings.ToUpper(strings.TrimSpace(method))
	segs := splitPath(NormalizePath(path))
	var out []*route
	candidates := c.routes[len(segs)]
	for i := range candidates {
		r := &candidates[i]
		if method != "" && !slices.Contains(r.methods, method) {
			continue
		}
		if segmentsMatch(r.segs, segs) {
			out = append(out, r)
		}
	}
	c.sortRoutes(out)
	return out
}

// sortRoutes orders routes by entry (the entries are sorted by id), then path pattern.
func (c *Catalog) sortRoutes(rs []*route) {
	slices.SortFunc(rs, func(a, b *route) int {
		if a.entry != b.entry {
			return a.entry - b.entry
		}
		return strings.Compare(c.entries[a.entry].Match.Endpoints[a.endpoint].Path, c.entries[b.entry].Match.Endpoints[b.endpoint].Path)
	})
}

// MatchRoute returns every endpoint, with its entry, that matches method and a concrete path
// (see MatchEndpoint for the path forms accepted), sorted by entry id then path pattern.
func (c *Catalog) MatchRoute(method, path string) []RouteMatch {
	return c.toMatches(c.match(method, path))
}

// toMatches turns routes into the endpoints, with their entries, that callers see.
func (c *Catalog) toMatches(rs []*route) []RouteMatch {
	out := make([]RouteMatch, len(rs))
	for i, r := range rs {
		e := c.entries[r.entry]
		out[i] = RouteMatch{Entry: e.clone(), Endpoint: cloneEndpoint(e.Match.Endpoints[r.endpoint])}
	}
	return out
}

// MatchEndpoint returns the entries with an endpoint matching method and a concrete path,
// sorted by id, each once. The path is relative to the v4 base ("/zones/0123/firewall/rules");
// a "/client/v4" prefix, a scheme and host, a trailing slash and a query string are ignored.
// Pattern segments ":x" and "{x}" match any one segment; method "" matches any method.
func (c *Catalog) MatchEndpoint(method, path string) []Entry {
	var out []Entry
	last := -1
	for _, r := range c.match(method, path) {
		if r.entry == last {
			continue
		}
		last = r.entry
		out = append(out, c.entries[r.entry].clone())
	}
	return out
}

func segmentsMatch(pattern, segs []string) bool {
	for i, p := range pattern {
		if p != "" && p != segs[i] {
			return false
		}
	}
	return true
}

// Unknown is a path segment whose value code does not write out (a variable, an
// interpolation): it matches a route parameter, never a literal segment.
const Unknown = ""

// MatchBuilt returns the endpoints a path that code builds can reach, whatever the method (a
// caller judges the method itself): segs are the path's segments relative to the v4 base,
// Unknown where the code puts a value the source does not show. A literal segment must equal
// the route's; an Unknown one matches only a parameter. With tail, segs may also be the part
// of a route after its scope (its first literal segment and the parameter after it,
// "zones/:zone_id") and may stop before the route's trailing parameters (the ids a client
// appends), as code that keeps the zone prefix in one place writes "/firewall/rules". The
// first segment of a tail must be literal. Sorted as MatchRoute; each endpoint once.
func (c *Catalog) MatchBuilt(segs []string, tail bool) []RouteMatch {
	if len(segs) == 0 {
		return nil
	}
	return c.matchAll(func(r *route) bool { return builtMatches(r.segs, segs, tail) })
}

// matchAll returns every endpoint whose route ok accepts, sorted as MatchRoute.
func (c *Catalog) matchAll(ok func(*route) bool) []RouteMatch {
	var rs []*route
	for _, group := range c.routes {
		for i := range group {
			if ok(&group[i]) {
				rs = append(rs, &group[i])
			}
		}
	}
	c.sortRoutes(rs)
	return c.toMatches(rs)
}

// builtMatches is MatchBuilt's test of one route's segments.
func builtMatches(route, segs []string, tail bool) bool {
	if !tail {
		return len(route) == len(segs) && segmentsMatch(route, segs)
	}
	if segs[0] == Unknown {
		return false
	}
	for _, k := range []int{0, 2} {
		if k == 2 && (len(route) < 2 || route[0] == "" || route[1] != "") {
			continue
		}
		if k+len(segs) > len(route) {
			continue
		}
		if segmentsMatch(route[k:k+len(segs)], segs) && allParams(route[k+len(segs):]) {
			return true
		}
	}
	return false
}

func allParams(segs []string) bool {
	for _, s := range segs {
		if s != "" {
			return false
		}
	}
	return true
}

// MatchLiterals returns the endpoints whose literal segments, in order, are exactly lits,
// parameters standing anywhere between and after them: the form of clients that spell the
// path as an attribute chain and pass the ids as arguments (cf.zones.firewall.rules.get(id)
// is ["zones", "firewall", "rules"]). Sorted as MatchRoute.
func (c *Catalog) MatchLiterals(lits []string) []RouteMatch {
	return c.matchAll(func(r *route) bool { return slices.Equal(literalsOf(r.segs), lits) })
}

func literalsOf(segs []string) []string {
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
