package scanner

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// liveDetectable lists the catalog entries a live scan can see in a snapshot. The others
// describe calls and behaviours that leave no trace in what the API returns: billing profile,
// images v1 direct upload, analytics dashboard, organizations, the page shield path rename,
// Transfer-Encoding with Content-Length, ChaCha20 draft ciphers, the DNS error_chain wrapper
// (a property of error responses to writes) and the bulk zone settings endpoint (the snapshot
// holds settings, not which endpoint a caller uses); config repository checks cover those.
var liveDetectable = map[vocab.RuleID]bool{
	vocab.FirewallRules: true, vocab.Filters: true, vocab.WAFManagedRulesV1: true, vocab.RateLimitingV1: true,
	vocab.CNAMEFlatteningSetting: true, vocab.AccountNameserverSettings: true, vocab.DNSSettingsUseApexNS: true,
	vocab.DNSSettingsSecondaryOverrides: true, vocab.DNSRecordZoneFields: true, vocab.DNSRecordLocked: true,
	vocab.SRVDataFields: true, vocab.ZoneSettingBrotli: true, vocab.ZoneSettingMinify: true, vocab.ZoneSettingMobileRedirect: true,
	vocab.ZoneSettingServerSideExclude: true, vocab.ZoneSettingPrivacyPass: true, vocab.NotificationEmail: true,
	vocab.ArgoTunnelsAPI: true, vocab.AccessBookmarksAPI: true, vocab.ThreatScoreField: true,
	vocab.GeoIPFieldNames: true,
}

// LiveDetectable reports whether a live scan can produce findings for the catalog id.
func LiveDetectable(id vocab.RuleID) bool { return liveDetectable[id] }

// LiveDetectableIDs returns the catalog ids a live scan can produce findings for, sorted.
func LiveDetectableIDs() []vocab.RuleID {
	out := make([]vocab.RuleID, 0, len(liveDetectable))
	for id := range liveDetectable {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Options tune a live scan.
type Options struct {
	// AsOf is the day severities are computed for (the --as-of clock); it is never read from
	// the system clock here.
	AsOf time.Time
	// SpillAfter, when above 0, lets a Live scan holding more findings than this write each
	// zone's findings to a temporary file (in SpillDir, "" being the system's), so that its
	// memory stays flat; ResultList then gives them as a list read from a file.
	SpillAfter int
	SpillDir   string
}

// Result is what a live scan found.
type Result struct {
	// Findings are sorted with SortFindings; nil from Live.ResultList, which gives them as a
	// list.
	Findings []Finding `json:"findings"`
	// Errors are the parts of accounts and zones that could not be read.
	Errors []RunError `json:"errors"`
	// Retired lists endpoints that answered as past their end of life during collection.
	Retired []RetiredNote `json:"retired,omitempty"`
	// Zones and Accounts count what the snapshot holds; ZonesFailed counts zones with at least
	// one collection error (their findings may be missing objects).
	Zones       int  `json:"zones"`
	ZonesFailed int  `json:"zones_failed"`
	Accounts    int  `json:"accounts"`
	Incomplete  bool `json:"incomplete"`
}

// RunError is a part of a scan that could not be done: a zone or account part that could not
// be collected (live), or a file that could not be read (Path). Fields that do not apply are
// empty. Reports list these as they are (the JSON report's "errors").
type RunError struct {
	AccountID string `json:"account_id,omitempty"`
	ZoneID    string `json:"zone_id,omitempty"`
	ZoneName  string `json:"zone_name,omitempty"`
	Path      string `json:"path,omitempty"`
	// What names what was being read, e.g. "firewall rules", "zone list", "parse".
	What    string `json:"what"`
	Message string `json:"message"`
}

// SkippedFile is a file a files scan met and did not read, and why: "binary", "symbolic
// link", "FIFO", "socket", "device", or written by sunset itself ("written by sunset:
// baseline"). A skipped file does not make a run incomplete, but every report names it.
type SkippedFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// RetiredNote records an endpoint that answered as retired (404/410/4xx past its end of life)
// while collecting: evidence that the entry is gone here, not a failure. RuleIDs are the
// catalog entries whose endpoints match it.
type RetiredNote struct {
	AccountID string         `json:"account_id,omitempty"`
	ZoneID    string         `json:"zone_id,omitempty"`
	ZoneName  string         `json:"zone_name,omitempty"`
	Method    string         `json:"method"`
	Path      string         `json:"path"`
	Status    int            `json:"status"`
	RuleIDs   []vocab.RuleID `json:"rule_ids,omitempty"`
}

// ScanSnapshot turns a live snapshot into findings against the catalog. It is pure: no I/O and
// no clock. A nil catalog means catalog.Default(); a nil snapshot yields an empty Result.
//
// Severity is the entry's SeverityAt(opts.AsOf); an entry not yet deprecated on that day
// (SeverityNone) produces nothing. Decisions where the catalog alone does not say:
//   - firewall-rules: one finding per rule, plus plan checks as separate findings (custom rules
//     quota per zone, counting existing custom rules; matches/~ below Business; log below
//     Enterprise). An unknown plan gets no plan check.
//   - filters: only orphans and filters shared by several rules; a filter used by one rule is
//     named in that rule's finding.
//   - waf-managed-rules-v1: one finding per active package (non-default groups and rules
//     summarised in it) and per URL override; packages whose status is not active are skipped.
//   - rate-limiting-v1: one per rate limit, plus a zone finding when old rate limits and
//     existing rate limiting rules exceed the new quota.
//   - dns-record-zone-fields, dns-record-locked: at most one finding per zone (the fields are
//     produced by the API; what changes is code reading them).
//   - dns-settings-use-apex-ns, dns-settings-secondary-overrides: only zones using the feature
//     (legacy endpoint value on, or the DNS settings field true).
//   - zone-setting-*: no finding at the no-op value (feature off; brotli on); brotli off is a
//     notice (compression comes on); a feature that is on is the entry's severity before its
//     end of life and a notice after it (the value left does nothing), except mobile_redirect
//     without its replacement redirect rule (ref inventory.MobileRedirectRef, or a rule that
//     does what it does, package meaning).
//   - values the replacement already reflects (cname_flattening, use_apex_ns,
//     secondary_overrides, the account nameserver fields), the DNS record response fields and
//     legacy tunnels are notices: only callers must move. A value with no mapping, or old and
//     new reads that disagree, keeps the entry's severity.
//   - notification-email: load balancer pools (the real API's home of the field); health
//     checks have no such field.
//   - waf-managed-rules-v1: packages of a zone whose waf setting is off are skipped.
//   - threat-score-field, geoip-field-names: one finding per expression (a filter, whatever the
//     number of rules using it, or a ruleset rule), resource kind "expression"; cf.threat_score
//     in a disabled ruleset rule is a notice.
//   - argo-tunnels-api: tunnels listed with deleted_at are skipped.
//
// Fingerprints are Fingerprint("live", rule id, "zone", zone id | "account", account id,
// resource kind, resource id, aspect), where aspect tells a plan check from the object's own
// finding; colliding fingerprints (duplicate object ids) are made unique, and findings
// identical in every field are kept once.
func ScanSnapshot(snap *inventory.Snapshot, cat *catalog.Catalog, opts Options) Result {
	if snap == nil {
		return Result{Findings: []Finding{}, Errors: []RunError{}}
	}
	l := NewLive(cat, opts)
	for i := range snap.Zones {
		l.Zone(&snap.Zones[i])
	}
	return l.Result(snap)
}

// Live is a live scan fed zone by zone, so that a collection can hand each zone over as it
// is read and drop its objects: memory then holds findings, not the account. Zone is safe
// for concurrent use; Result is called once, after the last Zone.
type Live struct {
	mu    sync.Mutex
	s     liveScan
	opts  Options
	spill *findingSpill // set once the findings went past opts.SpillAfter
	err   error         // the first error writing the spill
}

// NewLive starts a live scan (see ScanSnapshot for what it finds). A nil catalog means
// catalog.Default().
func NewLive(cat *catalog.Catalog, opts Options) *Live {
	if cat == nil {
		cat = catalog.Default()
	}
	return &Live{s: liveScan{cat: cat, asOf: opts.AsOf, exprs: map[string]ExprInfo{}}, opts: opts}
}

// Zone records the findings of one zone's objects. Its errors, retirements and the counts
// come from the snapshot given to Result, where the zone may stand without its objects.
func (l *Live) Zone(z *inventory.ZoneInventory) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s.zone(z)
	l.spillIfDue()
}

// ZoneFindings is Zone, also returning the zone's findings as a scan of the zone alone
// gives them (ScanSnapshot of a snapshot holding only z): sorted, fingerprints unique. A
// zone is then judged (planned) without being scanned twice.
func (l *Live) ZoneFindings(z *inventory.ZoneInventory) []Finding {
	l.mu.Lock()
	before := len(l.s.findings)
	l.s.zone(z)
	fs := slices.Clone(l.s.findings[before:])
	l.spillIfDue()
	l.mu.Unlock()
	fs = dedupeFingerprints(fs)
	SortFindings(fs)
	return fs
}

// spillIfDue writes the findings held to the spill once they are past Options.SpillAfter
// (and every zone's after that). Called with l.mu held.
func (l *Live) spillIfDue() {
	if l.opts.SpillAfter <= 0 || l.err != nil || (l.spill == nil && len(l.s.findings) <= l.opts.SpillAfter) {
		return
	}
	if l.spill == nil {
		if l.spill, l.err = newFindingSpill(l.opts.SpillDir); l.err != nil {
			return // the findings stay in memory; ResultList reports the error
		}
	}
	l.err = l.spill.write(l.s.findings)
	clear(l.s.findings) // the strings are in the file now
	l.s.findings = l.s.findings[:0]
}

// Result scans the snapshot's accounts, takes the counts, errors and retired endpoints of its
// accounts and zones (their objects must have gone through Zone), and returns every finding
// deduplicated and sorted. Findings spilled to a file are read back whole; should that
// fail, the failure is one of the errors.
func (l *Live) Result(snap *inventory.Snapshot) Result {
	res, list, err := l.ResultList(snap)
	res.Findings = list.Slice()
	if err == nil {
		err = errors.Join(list.Err(), list.Close())
	}
	if err != nil {
		res.Errors = append(res.Errors, RunError{What: "findings", Message: err.Error()})
		res.Incomplete = true
	}
	return res
}

// ResultList is Result with the findings as a list (Result.Findings is nil): a temporary
// file when the scan spilled (Options.SpillAfter), which the caller frees with Close. An
// error means the findings could not be written (SpillErr, or writing the list); the list
// is then nil and no file is left.
func (l *Live) ResultList(snap *inventory.Snapshot) (Result, *FindingList, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	res := l.s.result(snap)
	held := l.s.findings // the accounts' findings, and the zones' when nothing spilled
	l.s.findings = nil
	if l.spill == nil {
		// Also when the spill could not be opened: the findings stayed in memory, whole.
		fs := dedupeFingerprints(held)
		SortFindings(fs)
		return res, NewFindingList(fs), nil
	}
	if l.err != nil {
		err := errors.Join(l.err, l.spill.abort())
		l.spill = nil
		return res, nil, err
	}
	list, err := l.spill.list(l.opts.SpillDir, held)
	l.spill = nil // the list owns what is left
	return res, list, err
}

// SpillErr is the first failure writing the findings to their temporary file, nil while
// there is none. The scan goes on with the findings in memory, but ResultList will fail: a
// caller that sees it stops feeding zones (a full $TMPDIR).
func (l *Live) SpillErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close frees the temporary file of a scan that spilled and will not be asked for its
// result; after ResultList it does nothing.
func (l *Live) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.spill.abort()
	l.spill = nil
	return err
}

// result is the scan's Result without its findings, once the accounts are scanned (their
// findings join s.findings).
func (s *liveScan) result(snap *inventory.Snapshot) Result {
	res := Result{Errors: []RunError{}}
	res.Zones, res.Accounts = len(snap.Zones), len(snap.Accounts)
	for i := range snap.Accounts {
		a := &snap.Accounts[i]
		s.account(a)
		for _, e := range a.Errors {
			res.Errors = append(res.Errors, RunError{AccountID: a.Account.ID, What: e.What, Message: e.Message})
		}
		for _, r := range a.Retired {
			res.Retired = append(res.Retired, s.retired(r, a.Account.ID, "", ""))
		}
	}
	for i := range snap.Zones {
		z := &snap.Zones[i]
		if len(z.Errors) > 0 {
			res.ZonesFailed++
		}
		for _, e := range z.Errors {
			res.Errors = append(res.Errors, RunError{AccountID: z.Zone.Account.ID, ZoneID: z.Zone.ID, ZoneName: z.Zone.Name, What: e.What, Message: e.Message})
		}
		for _, r := range z.Retired {
			res.Retired = append(res.Retired, s.retired(r, z.Zone.Account.ID, z.Zone.ID, z.Zone.Name))
		}
	}
	sortRunErrors(res.Errors)
	sortRetired(res.Retired)
	res.Incomplete = snap.Incomplete || len(res.Errors) > 0
	return res
}

func sortRunErrors(errs []RunError) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := &errs[i], &errs[j]
		return cmpStrings(a.ZoneName, b.ZoneName, a.ZoneID, b.ZoneID, a.AccountID, b.AccountID, a.Path, b.Path, a.What, b.What, a.Message, b.Message) < 0
	})
}

func sortRetired(notes []RetiredNote) {
	sort.SliceStable(notes, func(i, j int) bool {
		a, b := &notes[i], &notes[j]
		if c := cmpStrings(a.ZoneName, b.ZoneName, a.ZoneID, b.ZoneID, a.AccountID, b.AccountID, a.Path, b.Path, a.Method, b.Method); c != 0 {
			return c < 0
		}
		return a.Status < b.Status
	})
}

func (s *liveScan) retired(r inventory.Retired, accountID, zoneID, zoneName string) RetiredNote {
	n := RetiredNote{AccountID: accountID, ZoneID: zoneID, ZoneName: zoneName, Method: r.Method, Path: r.Path, Status: r.Status}
	for _, e := range s.cat.MatchEndpoint(r.Method, r.Path) {
		n.RuleIDs = append(n.RuleIDs, e.ID)
	}
	slices.Sort(n.RuleIDs)
	return n
}

// dedupeFingerprints keeps fingerprints unique: findings that collide (the API can return two
// objects with one id, as a public fixture does for DNS records) get a fingerprint that also
// covers the resource name and message, and findings identical in every field are kept once.
func dedupeFingerprints(fs []Finding) []Finding {
	if len(fs) == 0 {
		return []Finding{} // never nil: results list [] rather than null
	}
	count := make(map[string]int, len(fs))
	for i := range fs {
		count[fs[i].Fingerprint]++
	}
	if len(count) == len(fs) {
		return fs // no collision: the common case needs no second set nor a copy
	}
	// Compacted in place: a million findings are not copied.
	out := fs[:0]
	seen := map[string]bool{}
	for _, f := range fs {
		if count[f.Fingerprint] > 1 {
			f.Fingerprint = Fingerprint(f.Fingerprint, f.Resource.Name, f.Message)
		}
		if seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		out = append(out, f)
	}
	clear(fs[len(out):]) // what was dropped is not kept alive by the array
	return out
}

// liveScan is the state of one ScanSnapshot call.
type liveScan struct {
	cat      *catalog.Catalog
	asOf     time.Time
	exprs    map[string]ExprInfo // inspectExpression's answers, by expression
	findings []Finding
	// dates are each rule's deprecation and end-of-life days as text, made once: a scan
	// of a million findings would otherwise hold two million copies.
	dates map[vocab.RuleID][2]string
}

// scope is where a finding lives: an account, or a zone (of an account).
type scope struct {
	accountID, zoneID, zoneName string
}

func zoneScope(z *inventory.ZoneInventory) scope {
	return scope{accountID: z.Zone.Account.ID, zoneID: z.Zone.ID, zoneName: z.Zone.Name}
}

// rule is a catalog entry with its severity as of the scan date.
type rule struct {
	e   catalog.Entry
	sev Severity
}

// rule looks an entry up; ok is false when the catalog lacks it or when, as of the scan date,
// it is not deprecated yet (SeverityNone): a live scan reports what is deprecated on that day.
func (s *liveScan) rule(id vocab.RuleID) (rule, bool) {
	e, ok := s.cat.Lookup(id)
	if !ok {
		return rule{}, false
	}
	sev := e.SeverityAt(s.asOf)
	if sev == SeverityNone {
		return rule{}, false
	}
	return rule{e: e, sev: sev}, true
}

// life says where the entry stands on the scan date, for messages.
func (r rule) life(asOf time.Time) string { return r.e.LifeAt(asOf) }

// add records a finding of r at severity sev (normally r.sev). aspect tells apart several
// findings of one rule on one object (e.g. a plan check next to the object's own finding).
func (s *liveScan) add(r rule, sev Severity, sc scope, res Resource, aspect, msg string) {
	var fp string
	if sc.zoneID != "" {
		fp = Fingerprint(SourceLive, string(r.e.ID), "zone", sc.zoneID, string(res.Kind), res.ID, aspect)
	} else {
		fp = Fingerprint(SourceLive, string(r.e.ID), "account", sc.accountID, string(res.Kind), res.ID, aspect)
	}
	d, ok := s.dates[r.e.ID]
	if !ok {
		d = [2]string{r.e.DeprecatedOn.String(), r.e.EndOfLife.String()}
		if s.dates == nil {
			s.dates = map[vocab.RuleID][2]string{}
		}
		s.dates[r.e.ID] = d
	}
	s.findings = append(s.findings, Finding{
		RuleID:       r.e.ID,
		Severity:     sev,
		Title:        r.e.Title,
		Message:      msg,
		Source:       SourceLive,
		AccountID:    sc.accountID,
		ZoneID:       sc.zoneID,
		ZoneName:     sc.zoneName,
		Resource:     res,
		DeprecatedOn: d[0],
		EndOfLife:    d[1],
		Replacement:  r.e.Replacement,
		DocURL:       r.e.DocURL,
		Fingerprint:  fp,
	})
}

// inspect parses an expression once per scan: a filter shared by several rules, or one
// expression in several rulesets, is read once.
func (s *liveScan) inspect(expr string) ExprInfo {
	if info, ok := s.exprs[expr]; ok {
		return info
	}
	info := inspectExpression(expr)
	s.exprs[expr] = info
	return info
}

func (s *liveScan) zone(z *inventory.ZoneInventory) {
	s.firewallRules(z)
	s.filters(z)
	s.expressionFields(z)
	s.wafPackages(z)
	s.wafOverrides(z)
	s.rateLimits(z)
	s.cnameFlattening(z)
	s.legacyDNSSettings(z)
	s.recordResponseFields(z)
	s.srvRecords(z)
	s.deprecatedZoneSettings(z)
}

func (s *liveScan) account(a *inventory.AccountInventory) {
	s.accountNameservers(a)
	s.tunnels(a)
	s.accessBookmarks(a)
	s.pools(a)
}

// named renders an object for messages: `"description" (id X)`, or `X` without a description.
func named(desc, id string) string {
	switch {
	case desc != "" && id != "":
		return fmt.Sprintf("%q (id %s)", desc, id)
	case desc != "":
		return fmt.Sprintf("%q", desc)
	case id != "":
		return "id " + id
	}
	return "(no id)"
}

// listN joins up to n items and says how many more there are.
func listN(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
