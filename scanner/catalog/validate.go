package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Date sources an entry can name in date_source, and the values WithDates accepts.
const (
	DatesSpec   = "spec"
	DatesNotice = "notice"
)

var (
	idPattern         = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	paramPattern      = regexp.MustCompile(`^(?::[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$`)
	literalSegment    = regexp.MustCompile(`^[A-Za-z0-9_.~-]+$`)
	settingPattern    = regexp.MustCompile(`^[a-z0-9_]+$`)
	exprFieldPattern  = regexp.MustCompile(`^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$`)
	tfResourcePattern = regexp.MustCompile(`^[a-z][a-z0-9]*_[a-z0-9_]+$`)
	attrPattern       = regexp.MustCompile(`^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*$`)
)

// httpMethods are the verbs an endpoint may list, upper-case as on the wire.
var httpMethods = []string{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}

// problem is one validation failure; key is the top-level YAML key it is about, so a parser can
// point at the line of that key.
type problem struct {
	key string
	msg string
}

// Validate checks one entry: kebab-case id; title, replacement and doc_url present; dates in
// order; date_source spec or notice; endpoints with upper-case HTTP verbs and paths starting
// with "/"; object kinds from the vocabulary; text patterns that compile. The error lists every
// problem and says what to fix.
func (e Entry) Validate() error {
	ps := e.problems()
	if len(ps) == 0 {
		return nil
	}
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = fmt.Errorf("entry %q: %s", e.ID, p.msg)
	}
	return errors.Join(errs...)
}

// Validate checks every entry (see Entry.Validate) and that ids are unique.
func Validate(entries []Entry) error {
	var errs []error
	seen := map[vocab.RuleID]Entry{}
	for _, e := range entries {
		if err := e.Validate(); err != nil {
			errs = append(errs, err)
		}
		if prev, dup := seen[e.ID]; dup && e.ID != "" {
			errs = append(errs, fmt.Errorf("entry %q: duplicate id (%s and %s); ids must be unique", e.ID, originOr(prev), originOr(e)))
		}
		seen[e.ID] = e
	}
	return errors.Join(errs...)
}

func originOr(e Entry) string {
	if e.Origin != "" {
		return e.Origin
	}
	return "unknown origin"
}

func (e Entry) problems() []problem {
	var ps []problem
	add := func(key, format string, args ...any) {
		ps = append(ps, problem{key: key, msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case e.ID == "":
		add("id", "id is missing: add `id: some-name` (lowercase kebab-case)")
	case !idPattern.MatchString(string(e.ID)):
		add("id", "id %q must be lowercase kebab-case (a-z, 0-9, single hyphens), e.g. \"firewall-rules\"", e.ID)
	}
	if strings.TrimSpace(e.Title) == "" {
		add("title", "title is missing: add a one-line `title:`")
	}
	if strings.TrimSpace(e.Replacement) == "" {
		add("replacement", "replacement is missing: say what to use instead (or \"None: ...\" when nothing replaces it)")
	}
	if strings.TrimSpace(e.DocURL) == "" {
		add("doc_url", "doc_url is missing: add the https:// address of the documentation")
	} else if u, err := url.Parse(e.DocURL); err != nil || u.Scheme != "https" || u.Host == "" {
		add("doc_url", "doc_url %q must be an absolute https:// URL", e.DocURL)
	}
	switch e.DateSource {
	case DatesSpec, DatesNotice:
	case "":
		add("date_source", "date_source is missing: write `date_source: spec` or `date_source: notice`")
	default:
		add("date_source", "date_source %q must be \"spec\" or \"notice\"", e.DateSource)
	}
	if !e.DeprecatedOn.IsZero() && !e.EndOfLife.IsZero() && e.EndOfLife.Before(e.DeprecatedOn.Time) {
		add("end_of_life", "end_of_life %s is before deprecated_on %s: swap them or fix the dates", e.EndOfLife, e.DeprecatedOn)
	}
	if n := e.Notice; n != nil {
		if n.DeprecatedOn.IsZero() && n.EndOfLife.IsZero() && strings.TrimSpace(n.Text) == "" {
			add("notice", "notice is empty: give notice.deprecated_on, notice.end_of_life or notice.text, or remove `notice:`")
		}
		dep, eol := e.DeprecatedOn, e.EndOfLife
		if !n.DeprecatedOn.IsZero() {
			dep = n.DeprecatedOn
		}
		if !n.EndOfLife.IsZero() {
			eol = n.EndOfLife
		}
		if !dep.IsZero() && !eol.IsZero() && eol.Before(dep.Time) {
			add("notice", "with the notice's dates, end of life %s comes before deprecation %s: fix notice dates", eol, dep)
		}
	}
	if strings.TrimSpace(e.AdvisoryText) != "" && !e.Advisory {
		add("advisory_text", "advisory_text says what an advisory entry is: add `advisory: true`, or remove it")
	}
	ps = append(ps, e.Match.problems()...)
	return ps
}

// problems lists what is wrong with the match block, in the order of its keys. An empty
// match is a problem of its own: the entry could never find anything.
func (m Match) problems() []problem {
	var ps []problem
	add := func(format string, args ...any) {
		ps = append(ps, problem{key: "match", msg: fmt.Sprintf(format, args...)})
	}
	if m.empty() {
		add("match is empty: give at least one of endpoints, objects, fields, settings, expression_fields, terraform or text")
	}
	m.endpointProblems(add)
	m.inventoryProblems(add)
	for _, f := range m.ExpressionFields {
		if !exprFieldPattern.MatchString(f) {
			add("match.expression_fields: %q must be a Rules language field name, e.g. ip.src.country", f)
		}
	}
	m.terraformProblems(add)
	for _, t := range m.Text {
		if _, err := regexp.Compile(t); err != nil {
			add("match.text: %q does not compile as a Go regular expression: %v", t, err)
		}
	}
	return ps
}

// empty reports whether the match names nothing to look for.
func (m Match) empty() bool {
	return len(m.Endpoints) == 0 && len(m.Objects) == 0 && len(m.Fields) == 0 && len(m.Settings) == 0 &&
		len(m.ExpressionFields) == 0 && len(m.Terraform.Resources) == 0 &&
		len(m.Terraform.Attributes) == 0 && len(m.Text) == 0
}

// endpointProblems checks match.endpoints: each needs upper-case HTTP verbs and a path
// pattern a route can have, or it would never match a request the client makes.
func (m Match) endpointProblems(add func(format string, args ...any)) {
	for i, ep := range m.Endpoints {
		where := fmt.Sprintf("match.endpoints[%d] (%s)", i, ep.Path)
		if len(ep.Methods) == 0 {
			add("%s: methods is empty: list the HTTP methods, e.g. [GET, PATCH]", where)
		}
		for _, meth := range ep.Methods {
			if !slices.Contains(httpMethods, meth) {
				add("%s: method %q must be an upper-case HTTP verb (%s)", where, meth, strings.Join(httpMethods, ", "))
			}
		}
		if p := pathProblem(ep.Path); p != "" {
			add("%s: %s", where, p)
		}
	}
}

// inventoryProblems checks the keys matched against the collected inventory (objects, fields,
// settings): kinds must come from the vocabulary and names must be spelled as the inventory
// spells them.
func (m Match) inventoryProblems(add func(format string, args ...any)) {
	for _, k := range m.Objects {
		if !IsObjectKind(k) {
			add("match.objects: %q is not an object kind (one of: %s)", k, strings.Join(objectKinds, ", "))
		}
	}
	for _, f := range m.Fields {
		if !IsObjectKind(f.Kind) {
			add("match.fields: kind %q is not an object kind (one of: %s)", f.Kind, strings.Join(objectKinds, ", "))
		}
		if !attrPattern.MatchString(f.Field) {
			add("match.fields: field %q of %s must be a dotted lowercase name, e.g. data.service", f.Field, f.Kind)
		}
	}
	for _, s := range m.Settings {
		if !settingPattern.MatchString(s) {
			add("match.settings: %q must be a zone setting id (lowercase, digits, underscores)", s)
		}
	}
}

// terraformProblems checks match.terraform: resource types and attribute paths as they are
// written in Terraform configuration.
func (m Match) terraformProblems(add func(format string, args ...any)) {
	for _, r := range m.Terraform.Resources {
		if !tfResourcePattern.MatchString(r) {
			add("match.terraform.resources: %q must be a resource type, e.g. cloudflare_firewall_rule", r)
		}
	}
	for _, a := range m.Terraform.Attributes {
		if !tfResourcePattern.MatchString(a.Kind) {
			add("match.terraform.attributes: kind %q must be a resource type, e.g. cloudflare_record", a.Kind)
		}
		if !attrPattern.MatchString(a.Field) {
			add("match.terraform.attributes: field %q of %s must be a dotted attribute path, e.g. data.service", a.Field, a.Kind)
		}
	}
}

// pathProblem returns what is wrong with an endpoint path pattern, or "".
func pathProblem(p string) string {
	if !strings.HasPrefix(p, "/") {
		return fmt.Sprintf("path %q must start with \"/\" (relative to the v4 base, e.g. /zones/:zone_id/...)", p)
	}
	if strings.ContainsAny(p, "?# \t") {
		return fmt.Sprintf("path %q must not carry a query string, fragment or spaces", p)
	}
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		switch {
		case seg == "":
			return fmt.Sprintf("path %q has an empty segment (a doubled or trailing \"/\")", p)
		case strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "{"):
			if !paramPattern.MatchString(seg) {
				return fmt.Sprintf("path %q: parameter %q must be :name or {name}", p, seg)
			}
		case !literalSegment.MatchString(seg):
			return fmt.Sprintf("path %q: segment %q has characters a route does not use", p, seg)
		}
	}
	return ""
}
