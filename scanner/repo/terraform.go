package repo

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// tfRules is what the catalog says about Terraform: deprecated resource types, deprecated
// attributes (a dotted path into the resource body, optionally only when another attribute
// has a value), the zone settings a per-setting resource can name, and where filter
// expressions live.
type tfRules struct {
	resources map[string]string     // resource type -> rule id
	attrs     map[string][]attrRule // resource type -> deprecated attributes
	settings  map[string]string     // zone setting id -> rule id
	exprs     *exprRules
	// conds are the conditional attributes (SRV data fields), once per rule and condition,
	// for the records that modules, for_each, locals, variables and tfvars pass around.
	conds []condRule
	// needs lists, per reason a file may hold something to report, the lowercase literals that
	// must all appear in it; a file matching none is not parsed (see mayMatch). valueNeeds are
	// the same for values outside resources (see valuesMayMatch).
	needs      map[string][][]finder
	valueNeeds valueNeeds
	// parseAll turns the prefilter off (benchmarks measure full parsing with it).
	parseAll bool
}

type attrRule struct {
	rule      vocab.RuleID
	path      []string
	whenKey   string
	whenValue string
}

// settingResources name one zone setting per resource (provider v5): setting_id says which.
var settingResources = map[string]string{"cloudflare_zone_setting": "setting_id"}

// exprResources says where Rules language expressions sit, and which attribute gives the
// ruleset phase ("" for filters, which have no phase).
// Filters are deprecated and their expressions must be migrated, so they are type-checked;
// rulesets are the replacement and are only searched for deprecated fields.
var exprResources = map[string]struct {
	path      []string
	phaseAttr string
	typeCheck bool
}{
	"cloudflare_filter":  {path: []string{"expression"}, typeCheck: true},
	"cloudflare_ruleset": {path: []string{"rules", "expression"}, phaseAttr: "phase"},
}

func newTFRules(cat *catalog.Catalog) *tfRules {
	r := &tfRules{resources: map[string]string{}, attrs: map[string][]attrRule{}, settings: map[string]string{}, exprs: newExprRules(cat)}
	for _, e := range cat.Entries() {
		for _, t := range e.Match.Terraform.Resources {
			r.resources[t] = string(e.ID)
		}
		for _, a := range e.Match.Terraform.Attributes {
			ar := attrRule{rule: e.ID, path: strings.Split(a.Field, ".")}
			if k, v, ok := strings.Cut(a.When, "="); ok {
				ar.whenKey, ar.whenValue = strings.TrimSpace(k), strings.TrimSpace(v)
			}
			r.attrs[a.Kind] = append(r.attrs[a.Kind], ar)
		}
		for _, s := range e.Match.Settings {
			r.settings[s] = string(e.ID)
		}
	}
	r.conds = condRules(r.attrs)
	r.needs = r.literalNeeds()
	r.valueNeeds = r.valueLiteralNeeds()
	return r
}

// literalNeeds derives the prefilter from the rules, per resource type named in a file: a
// deprecated resource type needs nothing more; a kind with a deprecated attribute needs the
// attribute's path (data and service), not its when value, which may come from a variable
// (type = var.type); the per-setting resource a deprecated setting id; a ruleset a deprecated
// field; a filter nothing more. A file where no type it names has one of its sets of
// literals, and that fails valuesMayMatch too, cannot produce a Terraform finding, so it is
// not parsed (its text checks still run).
func (r *tfRules) literalNeeds() map[string][][]finder {
	needs := map[string][][]finder{}
	add := func(typ string, lits ...string) {
		set := []finder{}
		for _, l := range lits {
			set = append(set, newFinder([]byte(strings.ToLower(l))))
		}
		needs[typ] = append(needs[typ], set)
	}
	for typ := range r.resources {
		add(typ)
	}
	for kind, ars := range r.attrs {
		for _, ar := range ars {
			add(kind, ar.path...)
		}
	}
	for typ := range settingResources {
		for setting := range r.settings {
			add(typ, setting)
		}
	}
	for typ, er := range exprResources {
		if er.typeCheck {
			add(typ)
			continue
		}
		for f := range r.exprs.fields {
			add(typ, f)
		}
	}
	return needs
}

// typePrefix starts every resource type of the provider.
var typePrefix = []byte("cloudflare_")

// mayMatch reports whether lower (the file, lowercased) names a resource type together with
// one of its sets of literals. One pass finds the types named; literals are searched only
// for those.
func (r *tfRules) mayMatch(lower []byte) bool { return r.mayMatchIn(lower, lower) }

// itemMayMatch is the prefilter of one top-level item: its resource types with their
// literals in the item, or, as a whole-file parse reads every resource of a file that holds
// one reason to be read, any type a rule reads in a file that passes mayMatch, unless
// the item pins every conditional attribute rule of its types to another value (a record
// whose type = "A" has no SRV fields, however often the file says SRV). fileMay is
// mayMatch of the whole file, found once: per item, it made a file of many blocks quadratic.
func (r *tfRules) itemMayMatch(part []byte, fileMay bool) bool {
	if r.mayMatchIn(part, part) {
		return true
	}
	return fileMay && r.namesRuledType(part) && !r.pinnedAway(part)
}

// namesRuledType reports whether part names a resource type some rule reads.
func (r *tfRules) namesRuledType(part []byte) bool {
	found := false
	typesIn(part, func(typ string) bool {
		_, found = r.needs[typ]
		return !found
	})
	return found
}

// typesIn calls fn with each provider resource type named in part (lowercased), in order,
// while fn returns true.
func typesIn(part []byte, fn func(typ string) bool) {
	for off := 0; ; {
		i := bytes.Index(part[off:], typePrefix)
		if i < 0 {
			return
		}
		end := off + i + len(typePrefix)
		for end < len(part) && (part[end] == '_' || (part[end] >= 'a' && part[end] <= 'z') || (part[end] >= '0' && part[end] <= '9')) {
			end++
		}
		if !fn(string(part[off+i : end])) {
			return
		}
		off = end
	}
}

// pinnedAway reports whether every resource type named in part has only conditional
// attribute rules (attribute "when" key = value), each of whose key part sets to another
// literal.
func (r *tfRules) pinnedAway(part []byte) bool {
	away := true
	typesIn(part, func(typ string) bool {
		if _, ok := r.resources[typ]; ok {
			away = false
		}
		for _, ar := range r.attrs[typ] {
			v, ok := literalSetting(part, ar.whenKey)
			if ar.whenKey == "" || !ok || strings.EqualFold(v, ar.whenValue) {
				away = false
			}
		}
		return away
	})
	return away
}

// literalSetting finds `key = "value"` at the start of a line of part (lowercased) and
// returns value; false when the key is not set to a literal string there.
func literalSetting(part []byte, key string) (string, bool) {
	for _, line := range bytes.Split(part, []byte("\n")) {
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(key))
		if !ok {
			continue
		}
		rest = bytes.TrimSpace(rest)
		if rest, ok = bytes.CutPrefix(rest, []byte("=")); !ok {
			continue
		}
		rest = bytes.TrimSpace(rest)
		if len(rest) >= 2 && rest[0] == '"' && bytes.IndexByte(rest[1:], '"') == len(rest)-2 {
			return string(rest[1 : len(rest)-1]), true
		}
		return "", false
	}
	return "", false
}

// mayMatchIn is mayMatch for the resource types named in part (an item of the file) with the
// literals they need looked for in the whole file, as mayMatch does.
func (r *tfRules) mayMatchIn(part, lower []byte) bool {
	var seen []string
	match := false
	typesIn(part, func(typ string) bool {
		if slices.Contains(seen, typ) {
			return true
		}
		seen = append(seen, typ)
		for _, set := range r.needs[typ] {
			if allIn(lower, set) {
				match = true
				return false
			}
		}
		return true
	})
	return match
}

// tfBody is a resource body read from native HCL or Terraform JSON.
type tfBody struct {
	attrs  []*tfAttr
	blocks []*tfBlock
	// dynamic holds the for_each of each dynamic block of this body (named after the block
	// type it generates), whose literal objects are values like a module's arguments.
	dynamic []*tfAttr
}

// tfAttr is one attribute with what can be known statically.
type tfAttr struct {
	name      string
	loc       scanner.Location
	lit       string // the value, when it is a literal of a primitive type
	isLit     bool
	templated bool    // a template with interpolations or directives
	obj       *tfBody // the value, when it is an object constructor
	tuple     []*tfBody
	// expr is the native-syntax expression, evaluated only when a rule asks for the value
	// (most attributes of a resource are never looked at).
	expr     hclsyntax.Expression
	resolved bool
	// tmpl is the template a native-syntax string was written as, for the lines of a heredoc.
	tmpl *hclsyntax.TemplateExpr
	// cond is the conditional a native-syntax value was written as (see NullWhen).
	cond *hclsyntax.ConditionalExpr
}

// value resolves what the attribute's value is statically: lit and isLit for a literal of a
// primitive type, templated (with lit holding the template text) for a template.
func (a *tfAttr) value() *tfAttr {
	if a.resolved || a.expr == nil {
		return a
	}
	a.resolved = true
	e := a.expr
	a.expr = e
	return a
}

// tfBlock is one block (a dynamic block stands for the blocks it generates).
type tfBlock struct {
	typ    string
	labels []string
	body   *tfBody
	loc    scanner.Location
}

func (b *tfBody) attr(name string) *tfAttr {
	if b == nil {
		return nil
	}
	for _, a := range b.attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

// nested returns the bodies named name: blocks of that type, an object-valued attribute,
// and the objects of a list-of-objects attribute (provider v5 writes rules = [{...}]).
func (b *tfBody) nested(name string) []*tfBody {
	if b == nil {
		return nil
	}
	var out []*tfBody
	for _, bl := range b.blocks {
		if bl.typ == name {
			out = append(out, bl.body)
		}
	}
	if a := b.attr(name); a != nil {
		if a.obj != nil {
			out = append(out, a.obj)
		}
		out = append(out, a.tuple...)
	}
	return out
}

// member is what a dotted path leads to: an attribute or a block, with its location.
type member struct {
	loc   scanner.Location
	attr  *tfAttr
	index int // position among bodies of the same name along the path (for addresses)
}

// lookup resolves a dotted path in b.
func (b *tfBody) lookup(path []string) []member {
	if b == nil || len(path) == 0 {
		return nil
	}
	if len(path) == 1 {
		var out []member
		if a := b.attr(path[0]); a != nil {
			out = append(out, member{loc: a.loc, attr: a})
		}
		for _, bl := range b.blocks {
			if bl.typ == path[0] {
				out = append(out, member{loc: bl.loc})
			}
		}
		return out
	}
	var out []member
	for i, nb := range b.nested(path[0]) {
		for _, m := range nb.lookup(path[1:]) {
			m.index = i
			out = append(out, m)
		}
	}
	return out
}

// tfResource is one resource block of a file.
type tfResource struct {
	typ, name string
	body      *tfBody
	loc       scanner.Location
}

// tfFile is what is read from one Terraform file: the resources of the types sunset knows,
// the values passed around outside resources (modules, locals, variables, tfvars), the spans
// of every block (for suppressions) and the first syntax error.
type tfFile struct {
	resources []tfResource
	values    []tfValues
	spans     []span
	perr      *parseError
}

// check parses a Terraform file and reports deprecated resources, attributes and
// expressions. It returns the spans of every block, for suppressions.
func (r *tfRules) check(c *Checker, displayPath string, kind Kind, data, lower []byte, li *lineIndex, add func(hit)) []span {
	typed := r.parseAll || r.mayMatch(lower)
	values := r.parseAll || r.valuesMayMatch(lower)
	if !typed && !values {
		return nil
	}
	wanted := func(typ string) bool {
		_, a := r.resources[typ]
		_, b := r.attrs[typ]
		_, s := settingResources[typ]
		_, e := exprResources[typ]
		return typed && (a || b || s || e)
	}
	release, pe := c.structure(kind, data)
	if pe != nil {
		add(parseHit(kind, pe))
		return nil
	}
	defer release()
	var f tfFile
	if kind == KindTerraformJSON {
		f = readTFJSON(data, wanted, values)
	} else {
		keep := func(start, end int) bool {
			part := bytes.TrimLeft(lower[start:end], " \t")
			if r.parseAll || (values && !bytes.HasPrefix(part, []byte("resource")) && !bytes.HasPrefix(part, []byte("data"))) {
				return true // values live in modules, locals, variables and top-level attributes
			}
			return typed && r.itemMayMatch(part, typed) // not parseAll here: typed is mayMatch(lower)
		}
		f = readHCL(data, displayPath, wanted, values, keep)
	}
	if f.perr != nil {
		add(parseHit(kind, f.perr))
	}
	w := &valueWalk{c: c, li: li, add: add}
	for _, res := range f.resources {
		r.resource(w, res)
	}
	for _, v := range f.values {
		for _, a := range v.body.attrs {
			r.walkValue(w, a, v.address, false)
		}
	}
	return f.spans
}

func (r *tfRules) resource(w *valueWalk, res tfResource) {
	add := w.add
	addr := res.typ + "." + res.name
	kind := tfKind(res.typ)
	if rule, ok := r.resources[res.typ]; ok {
		add(hit{
			rule: vocab.RuleID(rule), kind: vocab.Kind(kind), id: addr, name: res.name, address: addr,
			msg: "resource " + addr + " (" + res.typ + ") is deprecated",
			loc: res.loc,
		})
	}
	r.attrHits(res, addr, kind, add)
	if idAttr, ok := settingResources[res.typ]; ok {
		if a := res.body.attr(idAttr); a != nil && a.value().isLit {
			if rule, ok := r.settings[a.lit]; ok {
				add(hit{
					rule: vocab.RuleID(rule), kind: vocab.KindZoneSetting, id: addr, name: a.lit, address: addr + "." + idAttr,
					msg: addr + " manages the zone setting " + a.lit, loc: a.loc,
				})
			}
		}
	}
	r.resourceExpressions(w, res, addr, kind)
	r.resourceValues(w, res)
}

// attrHits reports the deprecated attributes the catalog lists for the resource's type (a
// conditional one only where its condition may hold, and not where its value is null for
// the condition's value: NullWhen).
func (r *tfRules) attrHits(res tfResource, addr, kind string, add func(hit)) {
	for _, ar := range r.attrs[res.typ] {
		if ar.whenKey != "" && !whenHolds(res.body.attr(ar.whenKey), ar.whenValue) {
			continue
		}
		for _, m := range res.body.lookup(ar.path) {
			if ar.whenKey != "" && m.attr != nil && m.attr.cond != nil && NullWhen(m.attr.cond, ar.whenValue) {
				continue // null for the condition's value: not set where it is deprecated
			}
			field := strings.Join(ar.path, ".")
			a := addr + "." + field
			if m.index > 0 {
				a = fmt.Sprintf("%s.%s[%d]", addr, field, m.index)
			}
			msg := addr + " sets " + field
			if ar.whenKey != "" {
				msg += " (" + ar.whenKey + " = " + ar.whenValue + ")"
				if !res.body.attr(ar.whenKey).value().isLit {
					msg = addr + " sets " + field + " (" + ar.whenKey + " is not a literal: it may be " + ar.whenValue + ")"
				}
			}
			add(hit{rule: ar.rule, kind: vocab.Kind(kind), id: addr, name: res.name, address: a, msg: msg, loc: m.loc})
		}
	}
}

// whenHolds reports whether a condition attribute (type = "SRV") holds. An attribute that is
// not a literal (a variable) may hold: the use is reported rather than missed.
func whenHolds(a *tfAttr, want string) bool {
	if a == nil {
		return false
	}
	if !a.value().isLit {
		return true
	}
	return strings.EqualFold(a.lit, want)
}

// tfKind maps a provider resource type to the finding's resource kind.
func tfKind(typ string) string {
	switch typ {
	case "cloudflare_firewall_rule":
		return string(vocab.KindFirewallRule)
	case "cloudflare_filter":
		return string(vocab.KindFilter)
	case "cloudflare_rate_limit":
		return string(vocab.KindRateLimit)
	case "cloudflare_waf_package":
		return string(vocab.KindWAFPackage)
	case "cloudflare_waf_group":
		return string(vocab.KindWAFGroup)
	case "cloudflare_waf_rule":
		return string(vocab.KindWAFRule)
	case "cloudflare_waf_override":
		return string(vocab.KindWAFOverride)
	case "cloudflare_argo_tunnel":
		return string(vocab.KindTunnel)
	case "cloudflare_access_bookmark":
		return string(vocab.KindAccessBookmark)
	case "cloudflare_record":
		return string(vocab.KindDNSRecord)
	case "cloudflare_zone_settings_override", "cloudflare_zone_setting":
		return string(vocab.KindZoneSetting)
	case "cloudflare_load_balancer_pool":
		return string(vocab.KindLoadBalancerPool)
	case "cloudflare_healthcheck":
		return string(vocab.KindHealthCheck)
	case "cloudflare_ruleset":
		return string(vocab.KindRuleset)
	}
	return "terraform_resource"
}

func hclLoc(r hcl.Range) scanner.Location {
	return scanner.Location{StartLine: r.Start.Line, StartColumn: r.Start.Column, EndLine: r.End.Line, EndColumn: r.End.Column}
}

// readHCL parses native syntax. A file with syntax errors still yields the resources of the
// partial tree hclsyntax recovers, and the first error. With values set it also reads the
// values outside resources: module arguments, locals, variable defaults and the top-level
// attributes of a .tfvars file. Only the top-level items keep accepts are parsed (see
// parseHCLItems).
func readHCL(data []byte, name string, wanted func(string) bool, values bool, keep func(start, end int) bool) tfFile {
	if pe := hclTooDeep(data); pe != nil {
		return tfFile{perr: pe}
	}
	if pe := hclTooLarge(data, keep); pe != nil {
		return tfFile{perr: pe}
	}
	f, diags := parseHCLItems(data, name, keep)
	var out tfFile
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			p := &parseError{Line: 1, Col: 1, Msg: d.Summary}
			if d.Detail != "" {
				p.Msg += ": " + d.Detail
			}
			if d.Subject != nil {
				p.Line, p.Col = d.Subject.Start.Line, d.Subject.Start.Column
			}
			out.perr = p
			break
		}
	}
	if f == nil {
		return out
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return out
	}
	var collect func(b *hclsyntax.Body)
	collect = func(b *hclsyntax.Body) {
		for _, bl := range b.Blocks {
			rg := bl.Range()
			out.spans = append(out.spans, span{start: rg.Start.Line, end: rg.End.Line})
			collect(bl.Body)
		}
	}
	collect(body)
	for _, bl := range body.Blocks {
		if bl.Type == "resource" && len(bl.Labels) == 2 && wanted(bl.Labels[0]) {
			out.resources = append(out.resources, tfResource{typ: bl.Labels[0], name: bl.Labels[1], body: hclBody(bl.Body, 0), loc: hclLoc(bl.Range())})
		}
		if values {
			if v, ok := hclValues(bl); ok {
				out.values = append(out.values, v)
			}
		}
	}
	if values && len(body.Attributes) > 0 {
		out.values = append(out.values, tfValues{address: "var", body: &tfBody{attrs: hclAttrs(body.Attributes, 0)}})
	}
	return out
}

// hclValues returns the values a top-level block passes on: a module's arguments, locals,
// a variable's default.
func hclValues(bl *hclsyntax.Block) (tfValues, bool) {
	switch {
	case bl.Type == "module" && len(bl.Labels) == 1:
		return tfValues{address: "module." + bl.Labels[0], body: &tfBody{attrs: hclAttrs(bl.Body.Attributes, 0)}}, true
	case bl.Type == "locals":
		return tfValues{address: "local", body: &tfBody{attrs: hclAttrs(bl.Body.Attributes, 0)}}, true
	case bl.Type == "variable" && len(bl.Labels) == 1:
		if a, ok := bl.Body.Attributes["default"]; ok {
			ta := hclAttr("default", a.Expr, 0)
			ta.loc = hclLoc(a.SrcRange)
			return tfValues{address: "var." + bl.Labels[0], body: &tfBody{attrs: []*tfAttr{ta}}}, true
		}
	}
	return tfValues{}, false
}

// parseHCLItems parses the top-level items of data that keep accepts (by byte range), each
// from its own position, as one file: hclsyntax reads a few MB/s, and a file of hundreds of
// records with one deprecated resource need not be read whole for it. A file hclTopLevel
// cannot split is parsed whole (its error is reported as before). The syntax errors of items
// left out are not seen: they could not hold a finding.
func parseHCLItems(data []byte, name string, keep func(start, end int) bool) (*hcl.File, hcl.Diagnostics) {
	items, ok := hclTopLevel(data)
	if !ok {
		return hclsyntax.ParseConfig(data, name, hcl.InitialPos)
	}
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}}
	var diags hcl.Diagnostics
	for _, it := range items {
		if !keep(it.start, it.end) {
			continue
		}
		f, d := hclsyntax.ParseConfig(data[it.start:it.end], name, hcl.Pos{Line: it.line, Column: 1, Byte: it.start})
		diags = append(diags, d...)
		if b, ok := f.Body.(*hclsyntax.Body); ok {
			body.Blocks = append(body.Blocks, b.Blocks...)
			for name, a := range b.Attributes {
				body.Attributes[name] = a
			}
		}
	}
	return &hcl.File{Body: body, Bytes: data}, diags
}

// maxTFDepth bounds the nesting read from one resource.
const maxTFDepth = 64

func hclBody(b *hclsyntax.Body, depth int) *tfBody {
	out := &tfBody{}
	if b == nil || depth > maxTFDepth {
		return out
	}
	out.attrs = hclAttrs(b.Attributes, depth)
	for _, bl := range b.Blocks {
		if bl.Type == "dynamic" && len(bl.Labels) == 1 {
			// dynamic "settings" { for_each = ...; content { ... } } generates settings blocks.
			for _, inner := range bl.Body.Blocks {
				if inner.Type == "content" {
					out.blocks = append(out.blocks, &tfBlock{typ: bl.Labels[0], body: hclBody(inner.Body, depth+1), loc: hclLoc(bl.Range())})
				}
			}
			if fe, ok := bl.Body.Attributes["for_each"]; ok {
				ta := hclAttr(bl.Labels[0], fe.Expr, depth)
				ta.loc = hclLoc(fe.SrcRange)
				out.dynamic = append(out.dynamic, ta)
			}
			continue
		}
		out.blocks = append(out.blocks, &tfBlock{typ: bl.Type, labels: bl.Labels, body: hclBody(bl.Body, depth+1), loc: hclLoc(bl.Range())})
	}
	return out
}

// hclAttrs reads attributes, sorted by name.
func hclAttrs(attrs hclsyntax.Attributes, depth int) []*tfAttr {
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*tfAttr, 0, len(names))
	for _, n := range names {
		a := attrs[n]
		ta := hclAttr(n, a.Expr, depth)
		ta.loc = hclLoc(a.SrcRange)
		out = append(out, ta)
	}
	return out
}

// hclAttr reads what an attribute's expression is statically. The objects and lists of a
// value built by a function call or a condition (tomap({...}), merge(a, {...}),
// flatten([[...]]), c ? {...} : {...}) are read as the value's, since what is looked for in
// them (SRV data fields, rule expressions) is there whatever the function does with them.
func hclAttr(name string, e hclsyntax.Expression, depth int) *tfAttr {
	a := &tfAttr{name: name}
	switch x := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		a.obj = hclObject(x, depth+1)
		return a
	case *hclsyntax.TupleConsExpr:
		a.tuple = hclTuple(x.Exprs, depth)
		return a
	case *hclsyntax.FunctionCallExpr:
		hclComposite(a, x.Args, depth)
		return a
	case *hclsyntax.ConditionalExpr:
		hclComposite(a, []hclsyntax.Expression{x.TrueResult, x.FalseResult}, depth)
		a.cond = x
		return a
	case *hclsyntax.ParenthesesExpr:
		return hclAttr(name, x.Expression, depth)
	}
	if len(e.Variables()) == 0 && !hasCall(e) {
		if v, diags := e.Value(nil); !diags.HasErrors() {
			a.lit, a.isLit = ctyString(v)
		}
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok {
		a.tmpl = t
		if !a.isLit {
			a.templated = true
			a.lit = templateSource(t)
		}
	}
	return a
}

// hclTuple reads the objects of a list, and of the lists in it.
func hclTuple(exprs []hclsyntax.Expression, depth int) []*tfBody {
	var out []*tfBody
	if depth > maxTFDepth {
		return nil
	}
	for _, el := range exprs {
		switch x := el.(type) {
		case *hclsyntax.ObjectConsExpr:
			out = append(out, hclObject(x, depth+1))
		case *hclsyntax.TupleConsExpr:
			out = append(out, hclTuple(x.Exprs, depth+1)...)
		}
	}
	return out
}

// hclComposite reads the objects and lists among args into a: the members of every object
// argument as one object, the objects of every list argument as one list.
func hclComposite(a *tfAttr, args []hclsyntax.Expression, depth int) {
	if depth > maxTFDepth {
		return
	}
	for _, arg := range args {
		v := hclAttr(a.name, arg, depth+1)
		if v.obj != nil {
			if a.obj == nil {
				a.obj = &tfBody{}
			}
			a.obj.attrs = append(a.obj.attrs, v.obj.attrs...)
		}
		a.tuple = append(a.tuple, v.tuple...)
	}
}

func hclObject(o *hclsyntax.ObjectConsExpr, depth int) *tfBody {
	out := &tfBody{}
	if depth > maxTFDepth {
		return out
	}
	for _, it := range o.Items {
		key := hcl.ExprAsKeyword(it.KeyExpr)
		if key == "" {
			if v, diags := it.KeyExpr.Value(nil); !diags.HasErrors() {
				key, _ = ctyString(v)
			}
		}
		if key == "" {
			continue
		}
		ta := hclAttr(key, it.ValueExpr, depth)
		rg := hcl.RangeBetween(it.KeyExpr.Range(), it.ValueExpr.Range())
		ta.loc = hclLoc(rg)
		out.attrs = append(out.attrs, ta)
	}
	return out
}

// hasCall reports whether an expression calls a function (Value(nil) would fail on it anyway;
// checking first avoids building diagnostics).
func hasCall(e hclsyntax.Expression) bool {
	found := false
	_ = hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		if _, ok := n.(*hclsyntax.FunctionCallExpr); ok {
			found = true
		}
		return nil
	})
	return found
}

// ctyString converts a known primitive value to its string form.
func ctyString(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsWhollyKnown() || !v.Type().IsPrimitiveType() {
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", false
	}
	return s.AsString(), true
}

// readTFJSON reads Terraform's JSON syntax: {"resource": {TYPE: {NAME: BODY}}} (each level
// may also be a list of such objects). A nested object is both a block and an object
// attribute; a list of objects is a list of blocks. Strings holding ${...} are templates.
// With values set it also reads module arguments, locals, variable defaults and, in a
// .tfvars.json file, the variables' values (any top-level member that is not a block type).
func readTFJSON(data []byte, wanted func(string) bool, values bool) tfFile {
	root, err := parseJSON(data)
	if err != nil {
		var pe *parseError
		errors.As(err, &pe) // parseJSON fails only with a *parseError
		return tfFile{perr: pe}
	}
	var out tfFile
	var walkSpans func(n *node)
	walkSpans = func(n *node) {
		if n.kind == nodeObject {
			out.spans = append(out.spans, span{start: n.line, end: n.endLine})
		}
		for _, v := range n.vals {
			walkSpans(v)
		}
	}
	walkSpans(root)
	for _, top := range objects(root) {
		for _, rs := range objects(top.get("resource")) {
			for i, typ := range rs.keys {
				if !wanted(typ) {
					continue
				}
				for _, byName := range objects(rs.vals[i]) {
					for j, name := range byName.keys {
						for _, b := range objects(byName.vals[j]) {
							out.resources = append(out.resources, tfResource{typ: typ, name: name, body: jsonBody(b, 0), loc: nodeLoc(b)})
						}
					}
				}
			}
		}
		if values {
			out.values = append(out.values, jsonValues(top)...)
		}
	}
	return out
}

// tfBlockTypes are the top-level block types of Terraform's JSON syntax.
var tfBlockTypes = map[string]bool{
	"resource": true, "data": true, "module": true, "locals": true, "variable": true, "output": true,
	"provider": true, "terraform": true, "moved": true, "import": true, "removed": true, "check": true,
}

// jsonValues returns the values of a Terraform JSON document outside resources, as
// hclValues does for native syntax.
func jsonValues(top *node) []tfValues {
	var out []tfValues
	for _, mods := range objects(top.get("module")) {
		for i, name := range mods.keys {
			for _, m := range objects(mods.vals[i]) {
				out = append(out, tfValues{address: "module." + name, body: jsonBody(m, 0)})
			}
		}
	}
	for _, l := range objects(top.get("locals")) {
		out = append(out, tfValues{address: "local", body: jsonBody(l, 0)})
	}
	for _, vars := range objects(top.get("variable")) {
		for i, name := range vars.keys {
			for _, v := range objects(vars.vals[i]) {
				if d := v.get("default"); d != nil {
					b := jsonBody(&node{kind: nodeObject, keys: []string{"default"}, vals: []*node{d}}, 0)
					out = append(out, tfValues{address: "var." + name, body: b})
				}
			}
		}
	}
	tfvars := &node{kind: nodeObject}
	for i, k := range top.keys {
		if !tfBlockTypes[k] {
			tfvars.keys, tfvars.vals = append(tfvars.keys, k), append(tfvars.vals, top.vals[i])
		}
	}
	if len(tfvars.keys) > 0 {
		out = append(out, tfValues{address: "var", body: jsonBody(tfvars, 0)})
	}
	return out
}

// objects returns n when it is an object, or the objects of n when it is an array.
func objects(n *node) []*node {
	if n == nil {
		return nil
	}
	switch n.kind {
	case nodeObject:
		return []*node{n}
	case nodeArray:
		var out []*node
		for _, v := range n.vals {
			if v.kind == nodeObject {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

func nodeLoc(n *node) scanner.Location {
	return scanner.Location{StartLine: n.line, StartColumn: n.col, EndLine: n.endLine, EndColumn: n.endCol}
}

func jsonBody(n *node, depth int) *tfBody {
	out := &tfBody{}
	if depth > maxTFDepth {
		return out
	}
	for i, k := range n.keys {
		v := n.vals[i]
		if k == "//" {
			continue // a comment in Terraform JSON
		}
		if k == "dynamic" {
			for _, d := range objects(v) {
				for j, typ := range d.keys {
					for _, spec := range objects(d.vals[j]) {
						for _, content := range objects(spec.get("content")) {
							out.blocks = append(out.blocks, &tfBlock{typ: typ, body: jsonBody(content, depth+1), loc: nodeLoc(spec)})
						}
						if fe := spec.get("for_each"); fe != nil {
							out.dynamic = append(out.dynamic, jsonAttr(typ, fe, depth))
						}
					}
				}
			}
			continue
		}
		out.attrs = append(out.attrs, jsonAttr(k, v, depth))
	}
	return out
}

// jsonAttr reads one member of a Terraform JSON body.
func jsonAttr(k string, v *node, depth int) *tfAttr {
	a := &tfAttr{name: k, loc: nodeLoc(v)}
	switch v.kind {
	case nodeObject:
		a.obj = jsonBody(v, depth+1) // a block and an object attribute look the same in JSON
	case nodeArray:
		for _, o := range objects(v) {
			b := jsonBody(o, depth+1)
			a.tuple = append(a.tuple, b)
		}
	default:
		if !v.isNull {
			a.lit = v.str
			if v.isString && bytes.Contains([]byte(v.str), []byte("${")) {
				a.templated = true
			} else {
				a.isLit = true
			}
		}
	}
	return a
}

// allIn reports whether every finder's literal occurs in data.
func allIn(data []byte, fs []finder) bool {
	for _, f := range fs {
		if !f.in(data) {
			return false
		}
	}
	return true
}
