package repo

import "strings"

// settingHelpers reports the deprecated zone setting ids handed to a project's own helper
// for zone settings (set_setting "$zone" "minify", getZoneSetting(zone, "brotli")): a call
// whose name has the word setting or settings, given a string that is exactly a deprecated
// setting id, with evidence that it is this API's zone: the file talks to the API, or the
// call names a zone (its name, an identifier or a value passed to it). Such a file's other
// strings that are setting ids then count as well (see settingStrings).
func (d *codeDetector) settingHelpers(cx *codeContext, add func(hit)) {
	for ci := range cx.f.Calls {
		c := &cx.f.Calls[ci]
		if cx.settingCall[ci] || !d.namesSetting(cx, ci) || !settingHelper(c.Name()) {
			continue
		}
		if cx.talksToAPI || callNamesScope(cx, ci) {
			cx.settingCalls = true
			cx.settingCall[ci] = true
			d.settingArgs(cx, ci, add)
		}
	}
}

// settingHelper reports whether a function's name has setting or settings as a word.
func settingHelper(name string) bool {
	return eachWord(name, func(w string) bool { return strings.EqualFold(w, "setting") || strings.EqualFold(w, "settings") })
}

// namesSetting reports whether call ci is given a deprecated setting id.
func (d *codeDetector) namesSetting(cx *codeContext, ci int) bool {
	for _, j := range cx.byCall[ci] {
		if _, ok := d.settings[cx.f.Strings[j].Value]; ok {
			return true
		}
	}
	return false
}

// callNamesScope reports whether call ci names a zone or account: its name (scopedHelper),
// an identifier passed to it, or the holes of a value passed to it ("$zone").
func callNamesScope(cx *codeContext, ci int) bool {
	c := &cx.f.Calls[ci]
	if scopedHelper(c.Callee) || namesScope(c.ArgIdents) {
		return true
	}
	for _, j := range cx.byCall[ci] {
		if namesScope(cx.f.Strings[j].HoleNames) {
			return true
		}
	}
	return false
}

// namesScope reports whether one of names names a zone or account id ("zone_id",
// "zoneIdentifier", "account").
func namesScope(names []string) bool {
	for _, n := range names {
		if n := strings.ToLower(n); strings.Contains(n, "zone") || strings.Contains(n, "account") {
			return true
		}
	}
	return false
}
