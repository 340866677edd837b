package fix

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// A group whose rules come from variables, for_each or count is rewritten as HCL that keeps
// them driven by the same data: a `for` expression over the same collection, with the
// action and field mappings of the translation written in HCL (lookup, replace), and the
// old evaluation order (priority, then action precedence) kept by sorting on a key built
// from both. The result is one list expression: the value of `rules` for provider v5, the
// for_each of a dynamic "rules" block for v4.

// noPriority sorts after every priority a firewall rule can have (at most 2^31-1).
const noPriority = 9999999999

// part is one resource pair as HCL: the iteration, the rule object's members, and its sort key.
type part struct {
	iter    string // "for k, v in COLL" (or "for k in range(N)"), "" for a single rule
	members []member
	prio    string // HCL number expression; a literal when static
	action  string // HCL string expression of the old action; a quoted literal when static
	index   int
	// threat: the rule's expression comes from data that may use cf.threat_score, and
	// enabled is false when it does.
	threat bool
}

// member is one attribute of the rule object.
type member struct{ name, value string }

// static reports whether the part's sort key is known without the data.
func (p *part) static() bool {
	_, errP := strconv.Atoi(p.prio)
	_, errA := strconv.Unquote(p.action)
	return errP == nil && errA == nil
}

// drivenList renders the group's rules as one HCL list expression; threat are the rules
// created disabled when their data uses cf.threat_score.
func drivenList(g *group, mappingOf func(*pair) mapping, literal func(*pair) *part) (list string, threat []string, err error) {
	parts := make([]*part, 0, len(g.pairs))
	defer func() {
		for i, p := range parts {
			if p.threat {
				threat = append(threat, g.pairs[i].rule.Address())
			}
		}
	}()
	for i, p := range g.pairs {
		if pt := literal(p); pt != nil {
			pt.index = i
			parts = append(parts, pt)
			continue
		}
		pt, err := drivenPart(p, mappingOf(p), false)
		if err != nil {
			return "", nil, err
		}
		pt.index = i
		parts = append(parts, pt)
	}
	allStatic := true
	for _, p := range parts {
		allStatic = allStatic && p.static()
	}
	if allStatic {
		return staticList(append([]*part(nil), parts...)), nil, nil
	}
	return sortedList(parts), nil, nil
}

// staticList concatenates the parts in the old evaluation order, known without the data.
func staticList(parts []*part) string {
	sort.SliceStable(parts, func(i, j int) bool {
		pi, _ := strconv.Atoi(parts[i].prio)
		pj, _ := strconv.Atoi(parts[j].prio)
		if pi != pj {
			return pi < pj
		}
		return precedenceOf(parts[i].action) < precedenceOf(parts[j].action)
	})
	lists := make([]string, 0, len(parts))
	var singles []string
	flush := func() {
		if len(singles) > 0 {
			lists = append(lists, "["+strings.Join(singles, ", ")+"]")
			singles = nil
		}
	}
	for _, p := range parts {
		if p.iter == "" {
			singles = append(singles, object(p.members))
			continue
		}
		flush()
		lists = append(lists, "["+p.iter+" : "+object(p.members)+"]")
	}
	flush()
	if len(lists) == 1 {
		return lists[0]
	}
	return "concat(\n" + strings.Join(lists, ",\n") + ",\n)"
}

func precedenceOf(quoted string) int {
	a, _ := strconv.Unquote(quoted)
	if p, ok := customrules.Precedence(vocab.Action(a)); ok {
		return p
	}
	return len(precedenceTable())
}

// sortedList keys every rule by priority, action precedence, part and instance key and
// takes the values of the merged map, which Terraform returns in key order.
func sortedList(parts []*part) string {
	objs := make([]string, 0, len(parts))
	for _, p := range parts {
		prio := fmt.Sprintf("coalesce(%s, %d)", p.prio, noPriority)
		if _, err := strconv.Atoi(p.prio); err == nil {
			prio = p.prio
		}
		key := fmt.Sprintf(`format("%%010d/%%d/%%02d/%%s", %s, lookup(%s, %s, %d), %d, %s)`,
			prio, precedenceMap(), p.action, len(precedenceTable()), p.index, keyOf(p))
		if p.iter == "" {
			objs = append(objs, "{ ("+key+") = "+object(p.members)+" }")
			continue
		}
		objs = append(objs, "{ "+p.iter+" : "+key+" => "+object(p.members)+" }")
	}
	return "values(merge(\n" + strings.Join(objs, ",\n") + ",\n))"
}

func keyOf(p *part) string {
	if p.iter == "" {
		return `""`
	}
	return "k"
}

// precedenceTable is the firewall actions in their precedence order.
func precedenceTable() []vocab.Action {
	var out []vocab.Action
	for _, a := range []vocab.Action{vocab.ActionLog, vocab.ActionBypass, vocab.ActionAllow, vocab.ActionChallenge, vocab.ActionManagedChallenge, vocab.ActionJSChallenge, vocab.ActionBlock} {
		if _, ok := customrules.Precedence(a); ok {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, _ := customrules.Precedence(out[i])
		pj, _ := customrules.Precedence(out[j])
		return pi < pj
	})
	return out
}

func precedenceMap() string {
	var b strings.Builder
	b.WriteString("{ ")
	for i, a := range precedenceTable() {
		p, _ := customrules.Precedence(a)
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %d", a, p)
	}
	b.WriteString(" }")
	return b.String()
}

func object(ms []member) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "%s = %s", m.name, m.value)
		if !strings.HasSuffix(m.value, "\n") { // a heredoc's closing line ends it already
			b.WriteString("\n")
		}
	}
	b.WriteString("}")
	return b.String()
}

// rename is a deprecated field name and its current one.
type rename struct{ old, new string }

// renamesIn are the field renames the catalog knows, those whose old name appears in any
// of texts (all of them when texts is nil: the data is not known).
func renamesIn(texts []string) []rename {
	var out []rename
	for _, f := range catalog.Fields().All() {
		if f.RenamedTo == "" {
			continue
		}
		if texts != nil && !containsField(texts, f.Name) {
			continue
		}
		out = append(out, rename{old: f.Name, new: f.RenamedTo})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].old < out[j].old })
	return out
}

func containsField(texts []string, name string) bool {
	re := fieldPattern(name)
	for _, t := range texts {
		if regexp.MustCompile(re).MatchString(t) {
			return true
		}
	}
	return false
}

// fieldPattern matches a field name as a whole word (not a prefix of a longer field).
func fieldPattern(name string) string { return `\b` + regexp.QuoteMeta(name) + `\b` }

// renamed wraps an expression in the replace calls of the renames.
func renamed(expr string, renames []rename) string {
	for _, r := range renames {
		expr = fmt.Sprintf("replace(%s, %s, %s)", expr, hclString("/"+fieldPattern(r.old)+"/"), hclString(r.new))
	}
	return expr
}

// hclString is s as a quoted HCL string (escapes and template sequences escaped).
func hclString(s string) string {
	return string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
}

// substituted is an attribute's source with each.key/each.value/count.index made the for
// expression's k and v, and, for a rule iterating over its filter, each.value.ATTR made the
// filter's attribute.
func substituted(r *Resource, x hclsyntax.Expression, filterAttrs, eachAttrs map[string]string, keepIter bool) (string, error) {
	return substitutedSrc(r.File.Path, exprText(r.File, x), filterAttrs, eachAttrs, keepIter)
}

// substitutedSrc is substituted on an expression's source text.
func substitutedSrc(path, src string, filterAttrs, eachAttrs map[string]string, keepIter bool) (string, error) {
	f, diags := hclwrite.ParseConfig([]byte("x = "+src+"\n"), path, hcl.InitialPos)
	if diags.HasErrors() {
		return "", diags
	}
	toks := f.Body().GetAttribute("x").Expr().BuildTokens(nil)
	if eachAttrs != nil && eachAttrs[""] != "" && len(eachAttrs) > 1 {
		toks = replaceEachValue(toks, eachAttrs)
	}
	if filterAttrs != nil {
		toks = replaceFilterRefs(toks, filterAttrs)
	}
	if !keepIter {
		toks = renamePrefix(toks, "each", "key", "k")
		toks = renamePrefix(toks, "each", "value", "v")
		toks = renamePrefix(toks, "count", "index", "k")
	}
	out := strings.TrimSpace(string(toks.Bytes()))
	if n := len(toks); n > 0 && toks[n-1].Type == hclsyntax.TokenNewline && n > 1 && toks[n-2].Type == hclsyntax.TokenCHeredoc {
		out += "\n" // a heredoc's closing marker ends its line, wherever the text goes
	} else if n > 0 && toks[n-1].Type == hclsyntax.TokenCHeredoc {
		out += "\n"
	}
	return out, nil
}

// renamePrefix replaces the traversal root.attr (not after a dot: a root) by name.
func renamePrefix(toks hclwrite.Tokens, root, attr, name string) hclwrite.Tokens {
	var out hclwrite.Tokens
	for i := 0; i < len(toks); i++ {
		if i+2 < len(toks) && toks[i].Type == hclsyntax.TokenIdent && string(toks[i].Bytes) == root &&
			toks[i+1].Type == hclsyntax.TokenDot && string(toks[i+2].Bytes) == attr &&
			(i == 0 || toks[i-1].Type != hclsyntax.TokenDot) {
			out = append(out, &hclwrite.Token{Type: hclsyntax.TokenIdent, Bytes: []byte(name), SpacesBefore: toks[i].SpacesBefore})
			i += 2
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

// replaceFilterRefs replaces cloudflare_filter.F[KEY].ATTR and cloudflare_filter.F.ATTR (a
// rule reading its own filter, which goes) by (the filter's ATTR); the caller passes only the
// attributes of the rule's filter, whose name is under the "" key.
func replaceFilterRefs(toks hclwrite.Tokens, attrs map[string]string) hclwrite.Tokens {
	name := attrs[""]
	var out hclwrite.Tokens
	for i := 0; i < len(toks); i++ {
		if i+2 < len(toks) && string(toks[i].Bytes) == typeFilter && toks[i+1].Type == hclsyntax.TokenDot && string(toks[i+2].Bytes) == name &&
			(i == 0 || toks[i-1].Type != hclsyntax.TokenDot) {
			j := i + 3
			if j < len(toks) && toks[j].Type == hclsyntax.TokenOBrack {
				for j < len(toks) && toks[j].Type != hclsyntax.TokenCBrack {
					j++
				}
				j++
			}
			if j+1 < len(toks) && toks[j].Type == hclsyntax.TokenDot {
				if v, ok := attrs[string(toks[j+1].Bytes)]; ok && string(toks[j+1].Bytes) != "" {
					out = append(out, &hclwrite.Token{Type: hclsyntax.TokenIdent, Bytes: []byte("(" + v + ")"), SpacesBefore: toks[i].SpacesBefore})
					i = j + 1
					continue
				}
			}
		}
		out = append(out, toks[i])
	}
	return out
}

// replaceEachValue replaces each.value.ATTR by (the filter's ATTR).
func replaceEachValue(toks hclwrite.Tokens, attrs map[string]string) hclwrite.Tokens {
	var out hclwrite.Tokens
	for i := 0; i < len(toks); i++ {
		if i+4 < len(toks) && string(toks[i].Bytes) == "each" && toks[i+1].Type == hclsyntax.TokenDot &&
			string(toks[i+2].Bytes) == "value" && toks[i+3].Type == hclsyntax.TokenDot {
			if v, ok := attrs[string(toks[i+4].Bytes)]; ok {
				out = append(out, &hclwrite.Token{Type: hclsyntax.TokenIdent, Bytes: []byte("(" + v + ")"), SpacesBefore: toks[i].SpacesBefore})
				i += 4
				continue
			}
		}
		out = append(out, toks[i])
	}
	return out
}

// mapping is what the HCL must map: the field renames, and whether a rule may use
// cf.threat_score (both as the known values need, or everything when they are not known).
type mapping struct {
	renames  []rename
	threat   bool
	longRefs bool // refs may reach the API's 50 characters: shorten them in HCL
}

// mappingFor is the mapping the expressions need; texts nil means not known. refs are the
// refs of the known rules (nil when not known): one that reaches the API's limit makes the
// HCL shorten them as shortRef does.
func mappingFor(texts, refs []string) mapping {
	long := texts == nil
	for _, r := range refs {
		long = long || utf8.RuneCountInString(r) >= maxRef
	}
	return mapping{renames: renamesIn(texts), threat: texts == nil || containsField(texts, threatField), longRefs: long}
}

// refExpr is a ref template, shortened in HCL as shortRef shortens it when refs may be long.
func refExpr(tmpl string, long bool) string {
	if !long {
		return tmpl
	}
	return fmt.Sprintf(`length(%s) <= %d ? %s : format("%%s_%%s", substr(%s, 0, %d), substr(sha1(%s), 0, 8))`, tmpl, maxRef, tmpl, tmpl, maxRef-9, tmpl)
}

// threatField is always 0 now: a rule using it is created disabled.
const threatField = "cf.threat_score"

// threatNotePrefix starts the note that names the rules created disabled when their data
// uses cf.threat_score.
const threatNotePrefix = "rules created disabled when their data uses cf.threat_score"

// threatNote says which rules carry the threat score guard, and what to do.
func threatNote(addrs []string) string {
	return fmt.Sprintf("%s (always 0 now: such a condition no longer means what it did): the rules of %s take their expression from values fix cannot read, and each one whose expression uses it gets enabled = false; replace the condition in that data (for example with cf.waf.score or cf.bot_management.score) and the rule is enabled", threatNotePrefix, joinList(addrs))
}

// drivenPart renders one pair as a part of the list; keepIter keeps each.* and count.* as
// they are (a ruleset repeated as the pair is), else they become the for expression's k, v.
func drivenPart(p *pair, mp mapping, keepIter bool) (*part, error) {
	r, f := p.rule, p.filter
	pt := &part{}
	// The rule may read its filter (each.value when it iterates over it, or a reference):
	// the filter goes, so its attributes are written in its place.
	filterAttrs := map[string]string{"": f.Name}
	for _, a := range []string{"expression", "description", "paused"} {
		if x := filterAttr(f, a); x != nil {
			src := exprText(f.File, x)
			if tm, ok := templateMapping(f.File, x, mp.longRefs); ok && a == "expression" {
				mp = tm // what its own text needs, whatever the values
				if renamed, ok := renamedTemplate(f.File, x); ok {
					src, mp.renames = renamed, nil // renamed where written: nothing left to replace()
				}
			}
			s, err := substitutedSrc(f.File.Path, src, nil, nil, keepIter)
			if err != nil {
				return nil, err
			}
			filterAttrs[a] = s
		}
	}
	viaAttrs := map[string]string{"": f.Name}
	iterOf := r
	if p.viaFilter {
		iterOf, viaAttrs = f, filterAttrs
	}
	switch {
	case keepIter:
	case iterOf.Attr("for_each") != nil:
		pt.iter = "for k, v in " + exprText(iterOf.File, iterOf.Attr("for_each"))
	case iterOf.Attr("count") != nil:
		pt.iter = "for k in range(" + exprText(iterOf.File, iterOf.Attr("count")) + ")"
	}
	sub := func(res *Resource, name, none string) (string, error) {
		if res == f {
			if s, ok := filterAttrs[name]; ok {
				return s, nil
			}
			return none, nil
		}
		x := ruleAttr(res, name)
		if x == nil {
			return none, nil
		}
		if res == r {
			return substituted(res, x, filterAttrs, viaAttrs, keepIter)
		}
		return substituted(res, x, nil, nil, keepIter)
	}
	vals := map[string]string{}
	for _, a := range []struct {
		res        *Resource
		name, none string
	}{
		{r, "description", ""}, {f, "description", ""}, {f, "expression", ""},
		{r, "action", ""}, {r, "products", "null"}, {r, "paused", "false"}, {r, "priority", strconv.Itoa(noPriority)},
	} {
		s, err := sub(a.res, a.name, a.none)
		if err != nil {
			return nil, err
		}
		vals[a.res.Type+"."+a.name] = s
	}
	pt.prio, pt.action = vals[typeFirewallRule+".priority"], vals[typeFirewallRule+".action"]
	pt.members = ruleMembers(r, pt, vals, mp)
	pt.threat = mp.threat
	return pt, nil
}

// ruleMembers are the custom rule's members in HCL, the same for every part so that v4's
// dynamic block finds each of them.
func ruleMembers(r *Resource, pt *part, vals map[string]string, mp mapping) []member {
	ref := hclString(shortRef(r.Name))
	if pt.iter != "" {
		// count.index has at most 10 digits: such refs fit unless the name is long.
		long := mp.longRefs && (!strings.HasPrefix(pt.iter, "for k in range(") || utf8.RuneCountInString(r.Name)+11 > maxRef)
		ref = refExpr(`"`+r.Name+`_${k}"`, long)
	}
	desc := "null"
	rd, fd := vals[typeFirewallRule+".description"], vals[typeFilter+".description"]
	if rd == "("+fd+")" {
		rd = fd
	}
	switch {
	case rd != "" && fd != "" && rd != fd && !nonEmptyLiteral(rd):
		desc = fmt.Sprintf(`%s != null && %s != "" ? %s : %s`, rd, rd, rd, fd)
	case rd != "":
		desc = rd
	case fd != "":
		desc = fd
	}
	old := vals[typeFilter+".expression"]
	a := vals[typeFirewallRule+".action"]
	return []member{
		{"ref", ref},
		{"description", desc},
		{"expression", renamed(old, mp.renames)},
		{"action", actionExpr(a)},
		{"action_parameters", paramsExpr(a, vals[typeFirewallRule+".products"])},
		{"enabled", enabledExpr(vals[typeFirewallRule+".paused"], old, mp.threat)},
	}
}

// nonEmptyLiteral reports whether an HCL expression is a quoted string with text: the
// rule's description, which wins over its filter's.
func nonEmptyLiteral(x string) bool {
	s, err := strconv.Unquote(x)
	return err == nil && s != "" && !strings.Contains(s, "${")
}

// actionExpr maps allow and bypass to skip, the other actions to themselves.
func actionExpr(a string) string {
	if s, err := strconv.Unquote(a); err == nil {
		if s == string(vocab.ActionAllow) || s == string(vocab.ActionBypass) {
			return hclString(string(vocab.ActionSkip))
		}
		return a
	}
	return fmt.Sprintf(`lookup({ allow = "skip", bypass = "skip" }, %s, %s)`, a, a)
}

// paramsExpr is the skip rule's action_parameters: the current ruleset for an allow, the
// products (and the phases that replace them) for a bypass, null for the other actions.
func paramsExpr(a, products string) string {
	allow := `{ ruleset = "current", products = null, phases = null }`
	bypass := bypassParams(products)
	if s, err := strconv.Unquote(a); err == nil {
		switch s {
		case string(vocab.ActionAllow):
			return allow
		case string(vocab.ActionBypass):
			return bypass
		}
		return "null"
	}
	if bypass == "null" {
		return fmt.Sprintf(`%s == "allow" ? %s : null`, a, allow)
	}
	return fmt.Sprintf(`%s == "allow" ? %s : %s == "bypass" ? %s : null`, a, allow, a, bypass)
}

// bypassParams skips the products and the phases that replace them: computed here when the
// products are literals, in HCL otherwise; null without products (a bypass without products
// skips nothing, and the API refuses it).
func bypassParams(products string) string {
	if prods, ok := literalStrings(products); ok {
		var phases []string
		for _, pr := range prods {
			if ph := customrules.SkipPhase(pr); ph != "" {
				phases = append(phases, string(ph))
			}
		}
		sort.Strings(phases)
		return fmt.Sprintf("{ ruleset = null, products = %s, phases = %s }", stringsOrNull(prods), stringsOrNull(phases))
	}
	if products == "null" {
		return "null"
	}
	if strings.ContainsAny(products, " ?:!=<>") {
		products = "(" + products + ")" // a conditional's ":" would end the for expression's head
	}
	phases := fmt.Sprintf("[for p in %s : %s[p] if contains(keys(%s), p)]", products, skipPhaseMap(), skipPhaseMap())
	return fmt.Sprintf("{ ruleset = null, products = %s, phases = length(%s) > 0 ? sort(%s) : null }", products, phases, phases)
}

// skipPhaseMap is customrules.SkipPhase as an HCL object.
func skipPhaseMap() string {
	var parts []string
	for _, p := range customrules.SkipProducts() {
		if ph := customrules.SkipPhase(p); ph != "" {
			parts = append(parts, fmt.Sprintf("%s = %q", p, ph))
		}
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// enabledExpr is !paused, and false for a rule using cf.threat_score (always 0), as the
// translation does.
func enabledExpr(paused, expr string, threat bool) string {
	guard := fmt.Sprintf(`length(regexall(%s, %s)) == 0`, hclString(fieldPattern(threatField)), expr)
	switch {
	case paused == "true":
		return "false"
	case paused == "false" && threat:
		return guard
	case paused == "false":
		return "true"
	case threat:
		return fmt.Sprintf("%s != true && %s", paused, guard)
	}
	return paused + " != true"
}

// literalPart is a single pair whose values the repository holds, translated as plan
// translates it and written as values, with the members every part has; nil when the pair
// is repeated, not known, or not translated.
func literalPart(ev *evaluator, p *pair, plan string) *part {
	if !literalPair(p) {
		return nil
	}
	old, ok := oldRules(ev, p)
	if !ok || len(old) != 1 {
		return nil
	}
	res := customrules.Translate(old, customrules.Options{Plan: plan})
	if len(res.Ruleset) != 1 {
		return nil
	}
	r := res.Ruleset[0]
	var params skipParams
	if len(r.ActionParameters) > 0 {
		if err := json.Unmarshal(r.ActionParameters, &params); err != nil {
			return nil
		}
	}
	prio := strconv.Itoa(noPriority)
	if old[0].Priority != nil {
		prio = strconv.Itoa(*old[0].Priority)
	}
	enabled := r.Enabled == nil || *r.Enabled
	return &part{prio: prio, action: hclString(string(old[0].Action)), members: []member{
		{"ref", hclString(r.Ref)},
		{"description", nullOr(r.Description)},
		{"expression", hclString(r.Expression)},
		{"action", hclString(string(r.Action))},
		{"action_parameters", params.hcl()},
		{"enabled", strconv.FormatBool(enabled)},
	}}
}

// skipParams are the skip action's parameters, as the translation writes them.
type skipParams struct {
	Ruleset  string   `json:"ruleset"`
	Products []string `json:"products"`
	Phases   []string `json:"phases"`
}

// hcl is the parameters as the object every part has, null when there are none.
func (p skipParams) hcl() string {
	if p.Ruleset == "" && len(p.Products) == 0 {
		return "null"
	}
	return fmt.Sprintf("{ ruleset = %s, products = %s, phases = %s }", nullOr(p.Ruleset), stringsOrNull(p.Products), stringsOrNull(p.Phases))
}

func nullOr(s string) string {
	if s == "" {
		return "null"
	}
	return hclString(s)
}

func stringsOrNull(xs []string) string {
	if len(xs) == 0 {
		return "null"
	}
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = hclString(x)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// literalStrings reads a list of strings written as literals ("null" is no list).
func literalStrings(src string) ([]string, bool) {
	x, diags := hclsyntax.ParseExpression([]byte(src), "", hcl.InitialPos)
	if diags.HasErrors() || !isLiteral(x) {
		return nil, false
	}
	v, diags := x.Value(nil)
	if diags.HasErrors() || v.IsNull() || (!v.Type().IsTupleType() && !v.Type().IsListType()) {
		return nil, false
	}
	var out []string
	for _, e := range v.AsValueSlice() {
		if !e.Type().Equals(cty.String) || e.IsNull() {
			return nil, false
		}
		out = append(out, e.AsString())
	}
	return out, len(out) > 0
}
