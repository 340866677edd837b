package repo

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// shapeRules recognise API objects in JSON and YAML by their shape, anywhere in a document
// (so response envelopes, lists, request bodies and exports are all covered):
//
//   - firewall rule: an "action" string and a "filter" object holding "expression" or "id";
//     or, flat as exports write it, "expression" and "action" where the action is one only
//     firewall rules have (allow, bypass) or the object has "paused" or "products";
//   - filter: an "expression" string with "paused" or "ref" and no "action" (a filter inside
//     a firewall rule is part of that rule's finding);
//   - rate limit (previous version): "threshold", "period" and a "match" object;
//   - WAF package: "detection_mode" with "sensitivity", "action_mode" or "zone_id"; WAF
//     group: "package_id" with "rules_count" or "modified_rules_count"; WAF rule: "package_id"
//     with "allowed_modes", or "mode" and "group"; WAF override: a "urls" list with "rules",
//     "groups", "rewrite_action" or "priority";
//   - DNS record: "type" SRV with a "data" object holding service, proto or name;
//   - zone setting: {"id": SETTING, "value": ...} for every setting the catalog deprecates
//     (cname_flattening, brotli, minify, mobile_redirect, server_side_exclude, privacy_pass);
//   - account: a "settings" object holding default_nameservers or
//     use_account_custom_ns_by_default;
//   - load balancer pool ("origins") or health check ("check_regions", "consecutive_fails")
//     with a non-empty "notification_email";
//   - a Pulumi resource ("type" cloudflare:index:NAME) or a Crossplane manifest ("kind" NAME,
//     "apiVersion" of a cloudflare group) whose type is a deprecated Terraform resource type
//     (ZoneSettingsOverride, FirewallRule, Filter, RateLimit, WafRule...).
//
// Expressions of firewall rules and filters are checked like Terraform's. Every other object
// holding an "expression" string with an "action", or in a list under a key ending in
// "rules" or "filters" (ruleset rules, other tools' rule profiles, Ansible variables,
// Pulumi YAML's properties.rules), has its expression searched for deprecated fields, each
// reported at the line that holds it.
type shapeRules struct {
	settings  map[string]string // zone setting id -> rule id
	resources map[string]string // Terraform resource type -> rule id, for Pulumi's types
	exprs     *exprRules
	prefilter []finder // lowercase literals; a file holding none is not parsed
}

func newShapeRules(cat *catalog.Catalog) *shapeRules {
	r := &shapeRules{settings: map[string]string{}, resources: map[string]string{}, exprs: newExprRules(cat)}
	lits := []string{"expression", "threshold", "detection_mode", "package_id", "urls", "srv",
		"default_nameservers", "use_account_custom_ns_by_default", "notification_email", "cloudflare"}
	for _, e := range cat.Entries() {
		for _, t := range e.Match.Terraform.Resources {
			r.resources[t] = string(e.ID)
		}
		for _, s := range e.Match.Settings {
			r.settings[s] = string(e.ID)
			lits = append(lits, strings.ToLower(s))
		}
	}
	sort.Strings(lits)
	for _, l := range lits {
		r.prefilter = append(r.prefilter, newFinder([]byte(l)))
	}
	return r
}

// check parses a JSON or YAML file and reports the objects it recognises; it returns the
// spans of every object, for suppressions.
func (r *shapeRules) check(c *Checker, kind Kind, data, lower []byte, li *lineIndex, add func(hit)) []span {
	if !anyIn(lower, r.prefilter) {
		return nil
	}
	release, pe := c.structure(kind, data)
	if pe != nil {
		add(parseHit(kind, pe))
		return nil
	}
	defer release()
	var docs []*node
	var err error
	if kind == KindJSON {
		var root *node
		if root, err = parseJSON(data); root != nil {
			docs = []*node{root}
		}
	} else {
		docs, err = parseYAML(data)
	}
	if err != nil {
		var pe *parseError
		if !errors.As(err, &pe) {
			pe = &parseError{Line: 1, Col: 1, Msg: err.Error()}
		}
		add(parseHit(kind, pe))
	}
	var spans []span
	for i, d := range docs {
		prefix := ""
		if len(docs) > 1 {
			prefix = "doc" + strconv.Itoa(i)
		}
		w := &shapeWalk{c: c, li: li, add: add, spans: &spans}
		r.walk(w, d, prefix, "", false)
	}
	return spans
}

// shapeWalk is what a walk over one document shares.
type shapeWalk struct {
	c     *Checker
	li    *lineIndex
	add   func(hit)
	spans *[]span
	// ruleset counts the rulesets (objects with a "phase") the walk is inside: their rules
	// are the replacement's, whoever posts them.
	ruleset int
	// inRule counts the rules (objects holding an expression) the walk is inside: an
	// expression in their other members is one too (see rules).
	inRule int
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// walk visits every node; pointer is the JSON pointer of n, parentKey the member name n is
// the value of (for an array element, the array's), inList whether n is an array element.
func (r *shapeRules) walk(w *shapeWalk, n *node, pointer, parentKey string, inList bool) {
	switch n.kind {
	case nodeObject:
		*w.spans = append(*w.spans, span{start: n.line, end: n.endLine})
		rule := r.object(w, n, pointer, parentKey, inList)
		phase := n.has("phase")
		w.ruleset += b2i(phase)
		w.inRule += b2i(rule)
		for i, k := range n.keys {
			r.walk(w, n.vals[i], pointer+"/"+escapePointer(k), k, false)
		}
		w.ruleset -= b2i(phase)
		w.inRule -= b2i(rule)
	case nodeArray:
		for i, v := range n.vals {
			r.walk(w, v, pointer+"/"+strconv.Itoa(i), parentKey, true)
		}
	}
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// emitFunc reports a finding on the object being matched: the rule, the kind of object, the
// aspect that tells findings on one object apart in its address, and the message.
type emitFunc func(rule vocab.RuleID, kind vocab.Kind, aspect, msg string)

// object applies every shape to one object. An object may match several shapes (a firewall
// rule carrying an id that is also a zone setting's), so each family is tried in turn and
// the findings keep this order. It reports whether the object is a rule (see rules).
func (r *shapeRules) object(w *shapeWalk, o *node, pointer, parentKey string, inList bool) bool {
	add := w.add
	if pointer == "" {
		pointer = "/"
	}
	id := o.text("id")
	name := firstNonEmpty(o.text("description"), o.text("name"))
	label := pointer
	if id != "" {
		label = pointer + " (id " + id + ")"
	}
	emit := func(rule vocab.RuleID, kind vocab.Kind, aspect, msg string) {
		add(hit{rule: rule, kind: kind, id: id, name: name, address: pointer + " " + aspect, msg: msg, loc: nodeLoc(o)})
	}
	if w.ruleset == 0 && postableRule(o) {
		add(hit{rule: vocab.FirewallRules, kind: vocab.KindFirewallRule, id: id, name: name, address: pointer + " firewall_rule",
			msg: "firewall rule " + label + " (action " + o.text("action") + "), a rule object a script of this repository posts to the filters and firewall rules API",
			loc: nodeLoc(o), ifPosted: true})
	}
	rule := r.rules(w, o, pointer, parentKey, inList, label, emit)
	if o.has("threshold") && o.has("period") && o.get("match") != nil && o.get("match").kind == nodeObject {
		emit(vocab.RateLimitingV1, vocab.KindRateLimit, "rate_limit", "rate limit "+label)
	}
	r.waf(o, label, emit)
	r.providerResource(o, label, emit)
	srvData(o, label, emit)
	r.zoneSetting(o, id, pointer, add)
	accountNameservers(o, label, emit)
	notificationEmail(o, label, emit)
	return rule
}

// rules recognises the objects that carry a Rules language expression: firewall rules
// (filter nested or flat), filters, and any other rule (an "expression" with an "action",
// or in a list under a key ending in "rules" or "filters"), and checks their expressions. A
// filter nested in a firewall rule is part of that rule's finding, so it is not reported
// again. Inside a rule, an object's "expression" (a transform rule's header value, a
// rewritten path's) or a member ending in "_expression" (a rate limit's
// counting_expression) is an expression too. It reports whether o is a rule.
func (r *shapeRules) rules(w *shapeWalk, o *node, pointer, parentKey string, inList bool, label string, emit emitFunc) bool {
	r.otherExpressions(w, o, pointer)
	action, hasAction := o.stringMember("action")
	exprText, hasExpr := o.stringMember("expression")
	filter := o.get("filter")
	switch {
	case hasAction && filter != nil && filter.kind == nodeObject && (filter.has("expression") || filter.has("id")):
		emit(vocab.FirewallRules, vocab.KindFirewallRule, "firewall_rule", "firewall rule "+label+" (action "+action+")")
		if fx, ok := filter.stringMember("expression"); ok {
			r.expression(w, o, filter, "expression", pointer+"/filter/expression", fx, true)
		}
	case hasAction && hasExpr && flatFirewallRule(o, action):
		emit(vocab.FirewallRules, vocab.KindFirewallRule, "firewall_rule", "firewall rule "+label+" (action "+action+")")
		r.expression(w, o, o, "expression", pointer+"/expression", exprText, true)
	case hasExpr && !hasAction && (o.has("paused") || o.has("ref")):
		if parentKey != "filter" {
			emit(vocab.Filters, vocab.KindFilter, "filter", "filter "+label)
			r.expression(w, o, o, "expression", pointer+"/expression", exprText, true)
		}
		return false
	case hasExpr && (hasAction || inList && isRulesKey(parentKey)):
		r.expression(w, o, o, "expression", pointer+"/expression", exprText, false)
	case hasExpr && w.inRule > 0 && parentKey != "filter": // a firewall rule's filter is checked as the rule's
		r.expression(w, o, o, "expression", pointer+"/expression", exprText, false)
		return false
	default:
		return false
	}
	return true
}

// otherExpressions checks, inside a rule, the members of o ending in "_expression" (a rate
// limit's counting_expression).
func (r *shapeRules) otherExpressions(w *shapeWalk, o *node, pointer string) {
	if w.inRule == 0 {
		return
	}
	for i, k := range o.keys {
		if v := o.vals[i]; strings.HasSuffix(k, "_expression") && v.kind == nodeScalar {
			r.expression(w, o, o, k, pointer+"/"+escapePointer(k), v.str, false)
		}
	}
}

// firewallActions are the actions a firewall rule takes; a ruleset rule takes others too
// (skip, execute, rewrite, redirect, ...).
var firewallActions = map[string]bool{"block": true, "challenge": true, "js_challenge": true, "managed_challenge": true, "allow": true, "log": true, "bypass": true}

// rulesetMembers are members only a ruleset rule has.
var rulesetMembers = []string{"enabled", "action_parameters", "ratelimit", "logging", "exposed_credential_check", "phase", "kind"}

// flatFirewallRule reports whether an object with an expression and action is a firewall
// rule by its shape alone, as exports write it: an action only firewall rules have, or a
// member only they have.
func flatFirewallRule(o *node, action string) bool {
	return action == "allow" || action == "bypass" || o.has("paused") || o.has("products")
}

// postableRule reports whether o is a rule object a script could post as a firewall rule
// (with its filter): an "expression" string and an "action" a firewall rule takes, and no
// member only a ruleset rule has. Whether it is one depends on what the repository does
// with it (see postedRules); objects that are firewall rules by their shape alone are
// reported by rules.
func postableRule(o *node) bool {
	if _, ok := o.stringMember("expression"); !ok {
		return false
	}
	action, ok := o.stringMember("action")
	if !ok || !firewallActions[action] || flatFirewallRule(o, action) {
		return false
	}
	for _, m := range rulesetMembers {
		if o.has(m) {
			return false
		}
	}
	return true
}

// isRulesKey reports whether a list under this key holds rules or filters: rules,
// custom_rules, firewallRules, filters.
func isRulesKey(k string) bool {
	k = strings.ToLower(k)
	return strings.HasSuffix(k, "rules") || strings.HasSuffix(k, "filters")
}

// srvData reports an SRV record that still sets the data fields the API no longer takes
// (service, proto, name), naming each one so the fix is plain.
func srvData(o *node, label string, emit emitFunc) {
	if !strings.EqualFold(o.text("type"), "SRV") {
		return
	}
	d := o.get("data")
	if d == nil || d.kind != nodeObject {
		return
	}
	var set []string
	for _, f := range []string{"service", "proto", "name"} {
		if d.has(f) {
			set = append(set, "data."+f)
		}
	}
	if len(set) > 0 {
		emit(vocab.SRVDataFields, vocab.KindDNSRecord, "srv", "SRV record "+label+" sets "+strings.Join(set, ", "))
	}
}

// zoneSetting reports {"id": SETTING, "value": ...} for a setting the catalog deprecates. The
// finding is named after the setting, not the object, and shows the value it is set to.
func (r *shapeRules) zoneSetting(o *node, id, pointer string, add func(hit)) {
	rule, ok := r.settings[id]
	if !ok || !o.has("value") {
		return
	}
	v := o.get("value")
	val := v.str
	if v.kind != nodeScalar {
		val = "{…}"
	}
	add(hit{rule: vocab.RuleID(rule), kind: vocab.KindZoneSetting, id: id, name: id, address: pointer + " setting",
		msg: "zone setting " + id + " = " + clip(val, 60) + " at " + pointer, loc: nodeLoc(o)})
}

// accountNameservers reports an account whose settings hold the retired nameserver
// settings, naming each one set.
func accountNameservers(o *node, label string, emit emitFunc) {
	s := o.get("settings")
	if s == nil || s.kind != nodeObject {
		return
	}
	var set []string
	for _, f := range []string{"default_nameservers", "use_account_custom_ns_by_default"} {
		if s.has(f) {
			set = append(set, "settings."+f)
		}
	}
	if len(set) > 0 {
		emit(vocab.AccountNameserverSettings, vocab.KindAccount, "account_ns", "account "+label+" sets "+strings.Join(set, ", "))
	}
}

// notificationEmail reports a load balancer pool or health check that sets a non-empty
// notification_email; which of the two it is decides the object kind.
func notificationEmail(o *node, label string, emit emitFunc) {
	if o.text("notification_email") == "" {
		return
	}
	switch {
	case o.has("origins"):
		emit(vocab.NotificationEmail, vocab.KindLoadBalancerPool, "notification_email", "load balancer pool "+label+" sets notification_email")
	case o.has("check_regions") || o.has("consecutive_fails"):
		emit(vocab.NotificationEmail, vocab.KindHealthCheck, "notification_email", "health check "+label+" sets notification_email")
	}
}

// pulumiPrefix starts the type tokens of the Pulumi provider, which bridges the Terraform
// provider: cloudflare:index:ZoneSettingsOverride (also written cloudflare:ZoneSettingsOverride
// and cloudflare:index/zoneSettingsOverride:ZoneSettingsOverride) is
// cloudflare_zone_settings_override.
const pulumiPrefix = "cloudflare:"

// providerResource reports a resource of the providers generated from the Terraform one,
// whose type is a deprecated Terraform resource type: Pulumi YAML ("type"
// cloudflare:[index:]NAME with "properties" or "options") and Kubernetes manifests of
// Crossplane ("kind" NAME with an "apiVersion" of a cloudflare group).
func (r *shapeRules) providerResource(o *node, label string, emit emitFunc) {
	name, what := "", ""
	switch t := o.text("type"); {
	case strings.HasPrefix(t, pulumiPrefix) && strings.Count(t, ":") <= 2 && (o.has("properties") || o.has("options")):
		name, what = t[strings.LastIndexByte(t, ':')+1:], "Pulumi resource"
	case strings.Contains(o.text("apiVersion"), "cloudflare") && o.text("kind") != "":
		name, what = o.text("kind"), "Kubernetes resource"
	default:
		return
	}
	typ := "cloudflare" + snakeCase(name)
	if rule, ok := r.resources[typ]; ok {
		emit(vocab.RuleID(rule), vocab.Kind(tfKind(typ)), "provider_resource", what+" "+label+" ("+name+", the Terraform provider's "+typ+")")
	}
}

// snakeCase writes a Go-style name in snake case with a leading underscore:
// ZoneSettingsOverride -> _zone_settings_override.
func snakeCase(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// waf recognises the previous version's WAF objects: packages, rule groups, rules and
// overrides.
func (r *shapeRules) waf(o *node, label string, emit emitFunc) {
	switch {
	case o.has("detection_mode") && (o.has("sensitivity") || o.has("action_mode") || o.has("zone_id")):
		emit(vocab.WAFManagedRulesV1, vocab.KindWAFPackage, "waf_package", "WAF package "+label)
	case o.has("package_id") && (o.has("rules_count") || o.has("modified_rules_count")):
		emit(vocab.WAFManagedRulesV1, vocab.KindWAFGroup, "waf_group", "WAF rule group "+label)
	case o.has("package_id") && (o.has("allowed_modes") || (o.has("mode") && o.has("group"))):
		emit(vocab.WAFManagedRulesV1, vocab.KindWAFRule, "waf_rule", "WAF rule "+label)
	}
	if u := o.get("urls"); u != nil && u.kind == nodeArray && (o.has("rules") || o.has("groups") || o.has("rewrite_action") || o.has("priority")) {
		emit(vocab.WAFManagedRulesV1, vocab.KindWAFOverride, "waf_override", "WAF override "+label)
	}
}

// expression checks one expression found in object owner; at is the object whose member
// key is the expression string. Only the expressions of deprecated objects (firewall rules, filters) are
// type-checked; ruleset rules are searched for deprecated fields.
func (r *shapeRules) expression(w *shapeWalk, owner, at *node, key, address, src string, typeCheck bool) {
	id := owner.text("id")
	x := exprSite{address: address, kind: string(vocab.KindExpression), id: id, name: firstNonEmpty(owner.text("description"), id), loc: nodeLoc(owner), typeCheck: typeCheck}
	if v := at.get(key); v != nil {
		x.loc = nodeLoc(v)
		if v.style != styleNone && r.exprs.mentionsField(src) {
			// A YAML scalar may be written over several lines (>-, |, plain or quoted).
			x.lines, x.file = alignLines(w.li, src, v.line, v.col, v.style), w.li
		}
	}
	r.exprs.check(w.c, x, src, false, w.add)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// String describes a node briefly (tests and debugging).
func (n *node) String() string {
	switch n.kind {
	case nodeObject:
		return fmt.Sprintf("object(%d members)@%d:%d", len(n.keys), n.line, n.col)
	case nodeArray:
		return fmt.Sprintf("array(%d)@%d:%d", len(n.vals), n.line, n.col)
	}
	return fmt.Sprintf("%q@%d:%d", n.str, n.line, n.col)
}
