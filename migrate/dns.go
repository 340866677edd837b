package migrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// dnsField is one zone DNS settings field with its deprecated source.
type dnsField struct {
	ruleID   vocab.RuleID
	field    string // flatten_all_cnames, multi_provider, secondary_overrides
	endpoint string // the old endpoint, relative to the zone
	findKind vocab.Kind
	findID   string
	current  func(*inventory.DNSSettings) *bool
	set      func(*Settings, bool)
}

var dnsFields = []dnsField{
	{vocab.CNAMEFlatteningSetting, "flatten_all_cnames", "settings/cname_flattening", vocab.KindZoneSetting, "cname_flattening",
		func(d *inventory.DNSSettings) *bool { return d.FlattenAllCNAMEs }, func(s *Settings, v bool) { s.FlattenAllCNAMEs = boolPtr(v) }},
	{vocab.DNSSettingsUseApexNS, "multi_provider", "dns_settings/use_apex_ns", vocab.KindDNSSettings, "use_apex_ns",
		func(d *inventory.DNSSettings) *bool { return d.MultiProvider }, func(s *Settings, v bool) { s.MultiProvider = boolPtr(v) }},
	{vocab.DNSSettingsSecondaryOverrides, "secondary_overrides", "dns_settings/secondary_overrides", vocab.KindDNSSettings, "secondary_overrides",
		func(d *inventory.DNSSettings) *bool { return d.SecondaryOverrides }, func(s *Settings, v bool) { s.SecondaryOverrides = boolPtr(v) }},
}

// dnsTranslator plans the zone's DNS objects: the DNS settings fields whose old endpoints
// are deprecated, SRV records carrying data.service/proto/name, and the DNS record response
// fields (zone_id, zone_name, locked) that code must stop reading.
type dnsTranslator struct{}

func (dnsTranslator) translate(b *builder) {
	m := &dnsSettingsMigration{b: b, patch: map[string]any{}}
	for _, f := range dnsFields {
		if fps := b.findings(f.ruleID, f.findKind, f.findID); len(fps) > 0 {
			m.planField(f, fps)
		}
	}
	m.patchSettings()
	if !m.target.IsZero() {
		b.zoneDNS = &m.target
	}
	srvRecords(b)
	recordFields(b)
}

// dnsSettingsMigration is the zone's DNS settings fields on their way off the deprecated
// endpoints: the settings after the plan, and the PATCH that writes the values that the
// DNS settings do not show yet.
type dnsSettingsMigration struct {
	b             *builder
	target        Settings
	patch         map[string]any
	patchResolves []string
	diffs         []Diff
}

// oldReading is what a field's deprecated source says.
type oldReading struct {
	value bool   // the value mapped to the new field
	read  bool   // the source was read
	known bool   // the value has a known mapping
	raw   string // the value as read, compact JSON
}

// readOld reads the deprecated source of a field.
func readOld(z *inventory.ZoneInventory, f dnsField) oldReading {
	if f.field == "flatten_all_cnames" {
		s, ok := z.Setting("cname_flattening")
		if !ok {
			return oldReading{}
		}
		v, known := inventory.FlattenAllCNAMEs(s.StringValue())
		return oldReading{value: v, read: true, known: known, raw: compactJSON(s.Value)}
	}
	for _, s := range z.LegacyDNSSettings {
		if s.ID == f.findID {
			v, known := inventory.SettingOn(s.Value)
			return oldReading{value: v, read: true, known: known, raw: compactJSON(s.Value)}
		}
	}
	return oldReading{}
}

// planField plans one zone DNS settings field whose old endpoint is deprecated. Old and new
// settings reflect each other, so usually nothing needs writing: the step is then "no
// change, stop using the old endpoint". The field is PATCHed through /zones/:id/dns_settings
// only when the DNS settings were not read or do not yet show the old value; a disagreement
// between both is a manual step (which one is current cannot be told from a snapshot).
func (m *dnsSettingsMigration) planField(f dnsField, fps []string) {
	z := m.b.z
	old := readOld(z, f)
	var cur *bool
	if z.DNSSettings != nil {
		cur = f.current(z.DNSSettings)
	}
	stop := Step{
		ID: "dns-settings.stop-old-endpoint:" + f.findID, Kind: KindDNSSettingsStopOld, Manual: true,
		Resolves: fps, Risk: RiskLow,
		Title:  fmt.Sprintf("Stop using /zones/:zone_id/%s; use %s of /zones/:zone_id/dns_settings", f.endpoint, f.field),
		Reason: "The old endpoint is deprecated; old and new settings reflect each other, so what must move is the callers (scripts, Terraform, tools).",
	}
	switch {
	case old.read && !old.known:
		m.unknownMapping(&stop, f, old)
	case cur != nil && (!old.read || *cur == old.value):
		f.set(&m.target, *cur)
		stop.Title = fmt.Sprintf("No change: %s is already %t; stop using /zones/:zone_id/%s", f.field, *cur, f.endpoint)
	case cur != nil && old.read:
		m.disagreement(&stop, f, old, *cur)
	case old.read:
		m.write(f, old, fps)
		stop.DependsOn = []string{"dns-settings.patch"}
	default:
		stop.Title = fmt.Sprintf("Stop using /zones/:zone_id/%s; set %s through /zones/:zone_id/dns_settings", f.endpoint, f.field)
	}
	if f.field == "flatten_all_cnames" && old.read && old.known {
		stop.Note = fmt.Sprintf("cname_flattening %s maps to flatten_all_cnames = %t (off, apex, flatten_at_root -> false; on, flatten_all -> true).", old.raw, old.value)
	}
	m.b.add(phaseManual, stop)
}

// unknownMapping makes stop the manual setting of a field whose old value maps to nothing.
func (m *dnsSettingsMigration) unknownMapping(stop *Step, f dnsField, old oldReading) {
	stop.Title = fmt.Sprintf("Set %s by hand: the old value %s has no known mapping", f.field, old.raw)
	stop.Reason = fmt.Sprintf("The deprecated %s value has no known %s mapping (off, apex, flatten_at_root -> false; on, flatten_all -> true).", f.endpoint, f.field)
	stop.Risk = RiskMedium
	stop.Method, stop.Path = "PATCH", zonePath(m.b.z.Zone.ID, "dns_settings")
}

// disagreement makes stop the decision between the old endpoint's value and the DNS
// settings' (cur), which should reflect each other; the target keeps the DNS settings'.
func (m *dnsSettingsMigration) disagreement(stop *Step, f dnsField, old oldReading, cur bool) {
	f.set(&m.target, cur)
	stop.Title = fmt.Sprintf("Decide %s: the old endpoint says %t, the DNS settings say %t", f.field, old.value, cur)
	stop.Reason = fmt.Sprintf("The deprecated %s reports %s (-> %s = %t) but the DNS settings report %s = %t; they should reflect each other, so one read is stale. Check which one is current, then PATCH /zones/:zone_id/dns_settings if the DNS settings are wrong.", f.endpoint, old.raw, f.field, old.value, f.field, cur)
	stop.Risk = RiskHigh
	stop.Method, stop.Path = "PATCH", zonePath(m.b.z.Zone.ID, "dns_settings")
	stop.Body = mustJSON(map[string]bool{f.field: old.value})
}

// write adds the old value of a field to the DNS settings PATCH.
func (m *dnsSettingsMigration) write(f dnsField, old oldReading, fps []string) {
	f.set(&m.target, old.value)
	m.patch[f.field] = old.value
	m.patchResolves = append(m.patchResolves, fps...)
	m.diffs = append(m.diffs, Diff{Label: f.field, Old: fmt.Sprintf("%s = %s", f.endpoint, old.raw), New: fmt.Sprintf("dns_settings.%s = %t", f.field, old.value)})
}

// patchSettings is the one PATCH of /zones/:id/dns_settings with every value to write.
func (m *dnsSettingsMigration) patchSettings() {
	if len(m.patch) == 0 {
		return
	}
	keys := make([]string, 0, len(m.patch))
	for k := range m.patch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m.b.add(phaseCreate, Step{
		ID: string(KindDNSSettingsPatch), Kind: KindDNSSettingsPatch, Change: ChangeUpdate,
		Method: "PATCH", Path: zonePath(m.b.z.Zone.ID, "dns_settings"), Body: mustJSON(m.patch),
		Resolves: m.patchResolves, Risk: RiskLow,
		Title:  "Set " + strings.Join(keys, ", ") + " in the zone DNS settings",
		Reason: "The DNS settings were not read or do not show the values the deprecated endpoints report; writing them through the new endpoint makes the new field the source of truth.",
		Diffs:  m.diffs,
	})
}

// srvRecords plans SRV records carrying data.service/proto/name: a PATCH with the outer
// name composed from them and the three fields removed. When the composed name conflicts
// with the record's name, which one is intended is a person's call: a manual step.
func srvRecords(b *builder) {
	z := b.z
	zid := z.Zone.ID
	for _, rec := range z.DNSRecords {
		if !strings.EqualFold(rec.Type, "SRV") || !rec.Data.HasDeprecatedSRVFields() {
			continue
		}
		fps := b.findings(vocab.SRVDataFields, vocab.KindDNSRecord, rec.ID)
		if len(fps) == 0 {
			continue
		}
		data := *rec.Data
		data.Service, data.Proto, data.Name = nil, nil, nil
		composed, missing := rec.Data.ComposeSRVName(z.Zone.Name)
		label := rec.Name + " SRV (" + rec.ID + ")"
		switch {
		case len(missing) == 0 && composed != inventory.NormalizeDNSName(rec.Name):
			b.add(phaseManual, Step{
				ID: "dns-record.review:" + rec.ID, Kind: KindDNSRecordReview, Manual: true,
				Method: "PATCH", Path: zonePath(zid, "dns_records", rec.ID),
				Body:     srvPatchBody(rec, rec.Name, data),
				Resolves: fps, Risk: RiskHigh,
				Title:  "Resolve the SRV name conflict of " + label,
				Reason: fmt.Sprintf("data.service/proto/name compose %s, which conflicts with the record name %s; the record name is what the API keeps once the data fields go.", composed, rec.Name),
				Note:   fmt.Sprintf("The body keeps the record name %s and drops the three fields; if %s is the intended name, send it as \"name\" instead.", rec.Name, composed),
				Diffs:  []Diff{{Label: label, Old: srvText(rec.Name, rec.Data), New: srvText(rec.Name, &data) + "   or   " + srvText(composed, &data)}},
			})
		default:
			name := rec.Name
			note := fmt.Sprintf("The fields compose %s, which agrees with the record name.", composed)
			if len(missing) > 0 {
				note = fmt.Sprintf("The fields cannot compose a name (%s missing): the record name stays.", strings.Join(missing, ", "))
			} else {
				name = composed
			}
			b.add(phaseCreate, Step{
				ID: "dns-record.patch:" + rec.ID, Kind: KindDNSRecordPatch, Change: ChangeUpdate,
				Method: "PATCH", Path: zonePath(zid, "dns_records", rec.ID),
				Body:     srvPatchBody(rec, name, data),
				Resolves: fps, Risk: RiskLow,
				Title:  "Drop data.service/proto/name from " + label,
				Reason: "Writers must set only the outer name and leave the three data fields unset; after the end of life the API refuses them.",
				Note:   note,
				Diffs:  []Diff{{Label: label, Old: srvText(rec.Name, rec.Data), New: srvText(name, &data)}},
			})
		}
	}
}

// srvPatchBody is the PATCH body of an SRV record without the deprecated data fields: the
// current API requires type and ttl on a PATCH too, so both are sent as the record has them
// (ttl 1 means automatic, the API's default when a record shows none).
func srvPatchBody(rec inventory.DNSRecord, name string, data inventory.RecordData) json.RawMessage {
	ttl := rec.TTL
	if ttl <= 0 {
		ttl = 1
	}
	return mustJSON(map[string]any{"type": "SRV", "name": name, "ttl": ttl, "data": data})
}

// srvFixBody is the PATCH the planner writes for an SRV record with the deprecated data
// fields (srvRecords): false when it writes none (no such fields, or a name conflict).
func srvFixBody(rec inventory.DNSRecord, zoneName string) (json.RawMessage, bool) {
	if !strings.EqualFold(rec.Type, "SRV") || !rec.Data.HasDeprecatedSRVFields() {
		return nil, false
	}
	data := *rec.Data
	data.Service, data.Proto, data.Name = nil, nil, nil
	composed, missing := rec.Data.ComposeSRVName(zoneName)
	switch {
	case len(missing) > 0:
		return srvPatchBody(rec, rec.Name, data), true
	case composed != inventory.NormalizeDNSName(rec.Name):
		return nil, false
	}
	return srvPatchBody(rec, composed, data), true
}

func srvText(name string, d *inventory.RecordData) string {
	s := name
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	num := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	if d != nil {
		if d.HasDeprecatedSRVFields() {
			s += fmt.Sprintf(" service=%s proto=%s name=%s", str(d.Service), str(d.Proto), str(d.Name))
		}
		s += fmt.Sprintf(" priority=%s weight=%s port=%s target=%s", num(d.Priority), num(d.Weight), num(d.Port), d.Target)
	}
	return s
}

// recordFields plans the zone-wide findings about DNS record response fields (zone_id,
// zone_name, locked): the API produces them, so what must change is code reading them.
func recordFields(b *builder) {
	zid := b.z.Zone.ID
	for _, c := range []struct {
		ruleID          vocab.RuleID
		fields, instead string
	}{
		{vocab.DNSRecordZoneFields, "zone_id and zone_name", "take the zone id and name from GET /zones/:zone_id"},
		{vocab.DNSRecordLocked, "locked", "drop it (it is always false)"},
	} {
		fps := b.findings(c.ruleID, vocab.KindZone, zid)
		if len(fps) == 0 {
			continue
		}
		b.add(phaseManual, Step{
			ID: "dns-record.stop-reading:" + string(c.ruleID), Kind: KindDNSRecordStopReading, Manual: true,
			Resolves: fps, Risk: RiskLow,
			Title:  "Stop reading " + c.fields + " from DNS record responses",
			Reason: "The API stops producing these fields; no call changes them. Code that reads them must " + c.instead + "; request bodies need no change (the fields are ignored).",
		})
	}
}
