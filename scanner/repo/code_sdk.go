package repo

import (
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// sdkCalls reports the calls and constructors of the SDKs the file imports (sdks.yaml), and
// the zone settings handed to their setting calls and resource types.
func (d *codeDetector) sdkCalls(cx *codeContext, add func(hit)) {
	for ci := range cx.f.Calls {
		c := &cx.f.Calls[ci]
		for _, sdk := range cx.sdks {
			if rule, what := d.sdkCall(cx, sdk, c); rule != "" {
				h := d.sdkHit(sdk, rule, what, c)
				h.postsRules = postsRules(rule, writeMethod(c.Name()))
				add(h)
			}
			if sdk.PathChains {
				d.pathChain(sdk, c, add)
			}
			if matchesAny(c, sdk.SettingCalls) {
				cx.settingCalls = true
				cx.settingCall[ci] = true
				d.settingArgs(cx, ci, add)
			}
			if slices.Contains(sdk.SettingsTypes, typeName(c)) {
				d.settingKeys(c, add)
			}
		}
	}
}

// sdkCall returns the rule a call of sdk reaches and how it was recognised ("call X",
// "service X", "type X"), "" when none.
func (d *codeDetector) sdkCall(cx *codeContext, sdk *catalog.SDK, c *code.Call) (vocab.RuleID, string) {
	if ownWrapper(cx.f, c) {
		return "", ""
	}
	for rule, names := range sdk.Calls {
		for _, n := range names {
			if chainEndsWith(c.Callee, n) {
				return rule, n
			}
		}
	}
	for rule, names := range sdk.Services {
		for _, n := range names {
			if rest := len(c.Callee) - strings.Count(n, ".") - 2; rest >= 1 && rest <= 2 && chainEndsWith(c.Callee[:len(c.Callee)-1], n) {
				return rule, n + "." + c.Name()
			}
		}
	}
	t := typeName(c)
	for rule, names := range sdk.Types {
		if slices.Contains(names, t) && (c.New || len(c.Callee) > 1 || strings.HasPrefix(c.Name(), "New")) {
			return rule, t
		}
	}
	return "", ""
}

// ownWrapper reports whether a call named like an SDK call is the project's own: a bare call
// of a function the file defines, or a call through a receiver of a name the file defines
// as a method, except inside that very method, where the wrapper delegates to the SDK
// (func (c *impl) UpdateFilter(...) { return c.cf.UpdateFilter(...) }).
func ownWrapper(f *code.File, c *code.Call) bool {
	name := c.Name()
	if !f.Declares(name) {
		return false
	}
	if len(c.Callee) == 1 {
		return true
	}
	method := false
	for _, fn := range f.Funcs {
		method = method || (fn.Method && fn.Name == name)
	}
	if !method {
		return false
	}
	in := f.Enclosing(c.Pos)
	return in == nil || !in.Method || in.Name != name
}

// typeName is the class a call constructs: the called name, less Go's New prefix.
func typeName(c *code.Call) string {
	n := c.Name()
	if t, ok := strings.CutPrefix(n, "New"); ok && t != "" && !c.New {
		return t
	}
	return n
}

// chainEndsWith reports whether the dotted name want ("Firewall.Rules") is the end of
// chain, across naming conventions (sameName). It runs for every call of a file and every
// name of an SDK: it neither splits nor folds into new strings.
func chainEndsWith(chain []string, want string) bool {
	for i := len(chain) - 1; i >= 0; i-- {
		part, rest, more := want, "", false
		if j := strings.LastIndexByte(want, '.'); j >= 0 {
			part, rest, more = want[j+1:], want[:j], true
		}
		if !sameName(chain[i], part) {
			return false
		}
		if !more {
			return true
		}
		want = rest
	}
	return false
}

// sameName reports whether normName(a) == normName(b) for ASCII names, without building
// either: underscores skipped, letters compared without case.
func sameName(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i] == '_' {
			i++
		}
		for j < len(b) && b[j] == '_' {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if lowerByte(a[i]) != lowerByte(b[j]) {
			return false
		}
		i, j = i+1, j+1
	}
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// matchesAny reports whether the call is one of names (a call name, or a service chain
// followed by any method).
func matchesAny(c *code.Call, names []string) bool {
	for _, n := range names {
		if chainEndsWith(c.Callee, n) || (len(c.Callee) > strings.Count(n, ".")+1 && chainEndsWith(c.Callee[:len(c.Callee)-1], n)) {
			return true
		}
	}
	return false
}

func (d *codeDetector) sdkHit(sdk *catalog.SDK, rule vocab.RuleID, what string, c *code.Call) hit {
	name := strings.Join(c.Callee, ".")
	return hit{
		rule:    rule,
		kind:    "sdk-call",
		id:      sdk.ID + " " + what,
		name:    clip(name, 120),
		address: "sdk " + sdk.ID + " " + what + " " + name,
		msg:     "calls " + sdk.Title + " " + what + " (" + clip(name, 80) + ")",
		loc:     callLocation(c),
		shadow:  true,
	}
}

func callLocation(c *code.Call) scanner.Location {
	return scanner.Location{StartLine: c.Pos.Line, StartColumn: c.Pos.Col, EndLine: c.Pos.Line, EndColumn: c.Pos.Col + len([]rune(c.Name()))}
}

// pathChain reports a call of a library that spells the path as an attribute chain
// (cf.zones.firewall.rules.get(zone_id)): the chain from its first scope word
// ("zones") to before the verb is the route's literal segments.
func (d *codeDetector) pathChain(sdk *catalog.SDK, c *code.Call, add func(hit)) {
	method, ok := sdk.Verbs[c.Name()]
	if !ok {
		return
	}
	chain := c.Callee[:len(c.Callee)-1]
	start := -1
	for i, el := range chain {
		if d.scopes[el] {
			start = i
			break
		}
	}
	if start < 0 {
		return
	}
	lits := chain[start:]
	reported := map[vocab.RuleID]bool{}
	for _, m := range preferMethod(d.cat.MatchLiterals(lits), method) {
		if m.Endpoint.Affected || reported[m.Entry.ID] {
			continue
		}
		reported[m.Entry.ID] = true
		h := d.sdkHit(sdk, m.Entry.ID, method+" "+m.Endpoint.Path, c)
		h.postsRules = postsRules(m.Entry.ID, method)
		add(h)
	}
}

// settingArgs reports the deprecated zone setting ids passed to an SDK setting call.
func (d *codeDetector) settingArgs(cx *codeContext, ci int, add func(hit)) {
	for _, j := range cx.byCall[ci] {
		s := &cx.f.Strings[j]
		if rule, ok := d.settings[s.Value]; ok {
			add(settingHit(rule, s.Value, strLocation(s)))
		}
	}
}

// settingStrings reports, in a file that hands setting ids to an SDK or sends the settings
// it names to the API, its own strings that are exactly a deprecated setting id: the
// constant tables such code keeps, the lists of settings a tool accepts (%w[minify
// mobile_redirect], choices=['brotli', ...]).
func (d *codeDetector) settingStrings(cx *codeContext, add func(hit)) {
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		if s.Comment || s.Call >= 0 && cx.settingCall[s.Call] {
			continue // documentation; or reported by settingArgs
		}
		if rule, ok := d.settings[s.Value]; ok {
			add(settingHit(rule, s.Value, strLocation(s)))
		}
	}
}

// settingKeys reports the deprecated settings a resource type takes by key
// (ZoneSettingsOverride's settings: {brotli: "on"}).
func (d *codeDetector) settingKeys(c *code.Call, add func(hit)) {
	for _, k := range c.Keys {
		for id, rule := range d.settings {
			if sameName(k.Name, id) {
				add(settingHit(rule, id, scanner.Location{StartLine: k.Pos.Line, StartColumn: k.Pos.Col, EndLine: k.Pos.Line, EndColumn: k.Pos.Col + len(k.Name)}))
			}
		}
	}
}

func settingHit(rule vocab.RuleID, id string, loc scanner.Location) hit {
	return hit{
		rule: rule, kind: vocab.KindZoneSetting, id: id, name: id,
		address: "setting " + id,
		msg:     "names the zone setting " + id,
		loc:     loc, shadow: true,
	}
}
