package emulator

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// CodeDNSNotProxiable is a proxied record of a type that cannot be proxied (emulator's choice).
const CodeDNSNotProxiable = 9004

// Dates of the DNS record changes (spec, Versioning).
var (
	srvFieldsEndOfLife  = time.Date(2024, 5, 31, 0, 0, 0, 0, time.UTC)
	lockedOmittedFrom   = time.Date(2024, 7, 14, 0, 0, 0, 0, time.UTC)
	errorChainDropped   = time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	zoneFieldsRemovedOn = time.Date(2024, 11, 30, 0, 0, 0, 0, time.UTC)
)

var dnsTypes = map[string]bool{
	"A": true, "AAAA": true, "CAA": true, "CERT": true, "CNAME": true, "DNSKEY": true, "DS": true,
	"HTTPS": true, "LOC": true, "MX": true, "NAPTR": true, "NS": true, "PTR": true, "SMIMEA": true,
	"SRV": true, "SSHFP": true, "SVCB": true, "TLSA": true, "TXT": true, "URI": true,
}

// renderRecord is a DNS record as the API returns it on the emulator's date: zone_id and
// zone_name before 2024-11-30, locked (always false) before 2024-07-14, and the SRV fields
// data.service/proto/name only before their end of life, 2024-05-31; with the members the
// description requires (see recordShape). The copy is shallow (it shares slices with the
// stored record); callers outside the lock deep-copy it.
func (st *state) renderRecord(z *zoneState, r *inventory.DNSRecord, asOf time.Time) inventory.DNSRecord {
	out := *r
	st.recordShape(z, &out, asOf)
	if asOf.Before(zoneFieldsRemovedOn) {
		out.ZoneID, out.ZoneName = strPtr(z.zone.ID), strPtr(z.zone.Name)
	}
	if asOf.Before(lockedOmittedFrom) {
		out.Locked = boolPtr(false)
	}
	if out.Data != nil && !asOf.Before(srvFieldsEndOfLife) {
		d := *out.Data
		d.Service, d.Proto, d.Name = nil, nil, nil
		out.Data = &d
	}
	return out
}

// fqdn makes a record name absolute within the zone: "@" is the apex, a relative name gets
// the zone name appended.
func (z *zoneState) fqdn(name string) string {
	name = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(name), "."))
	zone := strings.ToLower(z.zone.Name)
	switch {
	case name == "@" || name == zone:
		return zone
	case strings.HasSuffix(name, "."+zone):
		return name
	}
	return name + "." + zone
}

// hostnameChar reports whether a hostname label may hold the character: letters, digits,
// hyphens, underscores (service labels) and the wildcard.
func hostnameChar(ch rune) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '*'
}

// validHostname reports whether s is a hostname the API accepts: at most 253 characters in
// non-empty labels of at most 63.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, ch := range label {
			if !hostnameChar(ch) {
				return false
			}
		}
	}
	return true
}

// validateRecord checks and normalises a record; the error is the root cause (the caller
// wraps it on creation before 2024-10-01). The checks run in the API's order, so a record
// with several faults gets the same first error: type, name, content, TTL, proxying, then
// clashes with the zone's other records.
func (c *call) validateRecord(r *inventory.DNSRecord, exceptID string) *APIError {
	r.Type = strings.ToUpper(strings.TrimSpace(r.Type))
	if !dnsTypes[r.Type] {
		return &APIError{Code: CodeDNSBadType, Message: fmt.Sprintf("Invalid DNS record type %q", r.Type)}
	}
	// Fields the API ignores in requests.
	r.ZoneID, r.ZoneName, r.Locked = nil, nil, nil

	if e := c.validateRecordName(r); e != nil {
		return e
	}
	if e := validateContent(r); e != nil {
		return e
	}
	if e := validateTTL(r); e != nil {
		return e
	}
	if e := validateProxied(r); e != nil {
		return e
	}
	return c.zone.recordClash(r, exceptID)
}

// validateRecordName makes the record's name absolute within the zone and checks it. An SRV
// record may still name itself through data.service/proto/name before their end of life;
// from then on those fields are refused.
func (c *call) validateRecordName(r *inventory.DNSRecord) *APIError {
	if r.Type == "SRV" && r.Data.HasDeprecatedSRVFields() {
		if !c.asOf.Before(srvFieldsEndOfLife) {
			return &APIError{Code: CodeDNSSRVDeprecatedFields, Message: "SRV records no longer accept data.service, data.proto and data.name; set the full record name (_service._proto.name) instead"}
		}
		if strings.TrimSpace(r.Name) == "" && r.Data.Service != nil && r.Data.Proto != nil && r.Data.Name != nil {
			// Before the change the API built the record name from the three data fields.
			r.Name = *r.Data.Service + "." + *r.Data.Proto + "." + *r.Data.Name
		}
	}
	if strings.TrimSpace(r.Name) == "" {
		return &APIError{Code: CodeDNSBadName, Message: "DNS name is invalid: name is required"}
	}
	r.Name = c.zone.fqdn(r.Name)
	if !validHostname(r.Name) {
		return &APIError{Code: CodeDNSBadName, Message: fmt.Sprintf("DNS name %q is invalid", r.Name)}
	}
	return nil
}

// badContent is the error of a record whose content does not fit its type.
func badContent(r *inventory.DNSRecord, what string) *APIError {
	return &APIError{Code: CodeDNSBadContent, Message: fmt.Sprintf("Content for %s record is invalid: %s", r.Type, what)}
}

// contentValidators check (and for SRV, derive) a record's content, one per type whose
// content the emulator understands; every other type only needs content or data.
var contentValidators = map[string]func(r *inventory.DNSRecord) *APIError{
	"A":     validateA,
	"AAAA":  validateAAAA,
	"CNAME": validateHostContent,
	"NS":    validateHostContent,
	"PTR":   validateHostContent,
	"MX":    validateMX,
	"TXT":   validateTXT,
	"SRV":   validateSRV,
}

// validateContent checks the record's content by its type.
func validateContent(r *inventory.DNSRecord) *APIError {
	if v, found := contentValidators[r.Type]; found {
		return v(r)
	}
	if r.Content == "" && r.Data == nil {
		return badContent(r, "content or data is required")
	}
	return nil
}

// validateA wants a dotted IPv4 address (not an IPv4-mapped IPv6 one).
func validateA(r *inventory.DNSRecord) *APIError {
	ip := net.ParseIP(r.Content)
	if ip == nil || ip.To4() == nil || strings.Contains(r.Content, ":") {
		return badContent(r, "must be a valid IPv4 address")
	}
	return nil
}

// validateAAAA wants an address written as IPv6.
func validateAAAA(r *inventory.DNSRecord) *APIError {
	ip := net.ParseIP(r.Content)
	if ip == nil || !strings.Contains(r.Content, ":") {
		return badContent(r, "must be a valid IPv6 address")
	}
	return nil
}

// validateHostContent wants a hostname, absolute or not (CNAME, NS, PTR).
func validateHostContent(r *inventory.DNSRecord) *APIError {
	if !validHostname(strings.TrimSuffix(r.Content, ".")) {
		return badContent(r, "must be a valid hostname")
	}
	return nil
}

// validateMX wants a hostname and a 16-bit priority.
func validateMX(r *inventory.DNSRecord) *APIError {
	if e := validateHostContent(r); e != nil {
		return e
	}
	if r.Priority == nil || *r.Priority < 0 || *r.Priority > 65535 {
		return badContent(r, "priority must be between 0 and 65535")
	}
	return nil
}

// validateTXT wants some text.
func validateTXT(r *inventory.DNSRecord) *APIError {
	if r.Content == "" {
		return badContent(r, "content is required")
	}
	return nil
}

// validateSRV wants complete data with 16-bit numbers, and derives the record's priority and
// content from it, as the API shows them.
func validateSRV(r *inventory.DNSRecord) *APIError {
	d := r.Data
	if d == nil || d.Priority == nil || d.Weight == nil || d.Port == nil || d.Target == "" {
		return &APIError{Code: CodeDNSBadSRV, Message: "SRV record data must hold priority, weight, port and target"}
	}
	for _, v := range []int{*d.Priority, *d.Weight, *d.Port} {
		if v < 0 || v > 65535 {
			return &APIError{Code: CodeDNSBadSRV, Message: "SRV priority, weight and port must be between 0 and 65535"}
		}
	}
	r.Priority = intPtr(*d.Priority)
	r.Content = fmt.Sprintf("%d %d %s", *d.Weight, *d.Port, d.Target)
	return nil
}

// validateTTL defaults the TTL to 1 (automatic) and checks a set one is in range.
func validateTTL(r *inventory.DNSRecord) *APIError {
	if r.TTL == 0 {
		r.TTL = 1
	}
	if r.TTL != 1 && (r.TTL < 60 || r.TTL > 86400) {
		return &APIError{Code: CodeDNSBadTTL, Message: "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic"}
	}
	return nil
}

// validateProxied refuses proxying a type that cannot be proxied and makes "not proxied"
// explicit on the types that can.
func validateProxied(r *inventory.DNSRecord) *APIError {
	if r.Proxied != nil && *r.Proxied && !proxiable(r.Type) {
		return &APIError{Code: CodeDNSNotProxiable, Message: fmt.Sprintf("%s records cannot be proxied", r.Type)}
	}
	if r.Proxied == nil && proxiable(r.Type) {
		r.Proxied = boolPtr(false)
	}
	return nil
}

// recordClash is the error of a record that repeats another of the same name (same type and
// content) or shares its name with a CNAME; the record being replaced (exceptID) does not
// count.
func (z *zoneState) recordClash(r *inventory.DNSRecord, exceptID string) *APIError {
	for _, o := range z.records {
		if o.ID == exceptID || !strings.EqualFold(o.Name, r.Name) {
			continue
		}
		if o.Type == r.Type && o.Content == r.Content {
			return &APIError{Code: CodeDNSDuplicate, Message: "An identical record already exists."}
		}
		if o.Type == "CNAME" || r.Type == "CNAME" {
			return &APIError{Code: CodeDNSConflict, Message: "An A, AAAA, or CNAME record with that host already exists."}
		}
	}
	return nil
}

// dnsCreateError is the error of an invalid record creation: before 2024-10-01 one error 1004
// "DNS Validation Error" holding the root cause in error_chain; from then on the root cause
// itself.
func (c *call) dnsCreateError(root APIError) *reply {
	if c.asOf.Before(errorChainDropped) {
		return failErrors(http.StatusBadRequest, APIError{Code: CodeDNSValidation, Message: "DNS Validation Error", ErrorChain: []APIError{root}})
	}
	return failErrors(http.StatusBadRequest, root)
}

func (z *zoneState) findRecord(id string) int {
	for i, r := range z.records {
		if r.ID == id {
			return i
		}
	}
	return -1
}

// dnsRoutes registers the DNS record endpoints.
func (s *Server) dnsRoutes() {
	s.handle("GET", "/zones/:zone_id/dns_records", (*call).listRecords)
	s.handle("POST", "/zones/:zone_id/dns_records", func(c *call) *reply {
		var r inventory.DNSRecord
		if rep := c.decode(&r); rep != nil {
			return rep
		}
		if e := c.validateRecord(&r, ""); e != nil {
			return c.dnsCreateError(*e)
		}
		r.ID = c.st.newID("dns_record")
		stampRecord(&r, c.stamp(), true)
		c.zone.records = append(c.zone.records, &r)
		return ok(c.st.renderRecord(c.zone, &r, c.asOf))
	})
	s.handle("GET", "/zones/:zone_id/dns_records/:record_id", func(c *call) *reply {
		k := c.zone.findRecord(c.params["record_id"])
		if k < 0 {
			return notFound("DNS record", c.params["record_id"])
		}
		return ok(c.st.renderRecord(c.zone, c.zone.records[k], c.asOf))
	})
	update := func(patch bool) func(*call) *reply {
		return func(c *call) *reply {
			id := c.params["record_id"]
			k := c.zone.findRecord(id)
			if k < 0 {
				return notFound("DNS record", id)
			}
			var r inventory.DNSRecord
			if patch {
				var changes map[string]json.RawMessage
				if rep := c.decode(&changes); rep != nil {
					return rep
				}
				// Merge over the record as this date shows it, so fields the API no longer
				// produces (SRV data.service/proto/name) are not sent back implicitly.
				merged, err := mergeJSON(c.st.renderRecord(c.zone, c.zone.records[k], c.asOf), changes)
				if err != nil {
					return fail(http.StatusBadRequest, CodeMalformedJSON, "Malformed JSON in request body: %v", err)
				}
				r = merged
			} else if rep := c.decode(&r); rep != nil {
				return rep
			}
			r.ID = id
			if e := c.validateRecord(&r, id); e != nil {
				return failErrors(http.StatusBadRequest, *e)
			}
			stampRecord(&r, c.stamp(), false)
			if created, found := c.zone.records[k].Extra["created_on"]; found {
				r.Extra["created_on"] = created
			}
			c.zone.records[k] = &r
			return ok(c.st.renderRecord(c.zone, &r, c.asOf))
		}
	}
	s.handle("PATCH", "/zones/:zone_id/dns_records/:record_id", update(true))
	s.handle("PUT", "/zones/:zone_id/dns_records/:record_id", update(false))
	s.handle("DELETE", "/zones/:zone_id/dns_records/:record_id", func(c *call) *reply {
		id := c.params["record_id"]
		k := c.zone.findRecord(id)
		if k < 0 {
			return notFound("DNS record", id)
		}
		c.zone.records = append(c.zone.records[:k], c.zone.records[k+1:]...)
		return ok(map[string]string{"id": id})
	})
}

// stampRecord sets modified_on (and created_on for a new record) from the wall clock.
func stampRecord(r *inventory.DNSRecord, ts string, created bool) {
	if r.Extra == nil {
		r.Extra = inventory.Extra{}
	}
	b, _ := json.Marshal(ts)
	r.Extra["modified_on"] = b
	if created {
		r.Extra["created_on"] = b
	}
}

// listRecords is GET /zones/:zone_id/dns_records with the type, name, content and proxied filters.
func (c *call) listRecords() *reply {
	q := c.query
	var out []*inventory.DNSRecord
	for _, r := range c.zone.records {
		if v := q.Get("type"); v != "" && !strings.EqualFold(r.Type, v) {
			continue
		}
		if v := q.Get("name"); v != "" && !strings.EqualFold(r.Name, c.zone.fqdn(v)) {
			continue
		}
		if v := q.Get("content"); v != "" && r.Content != v {
			continue
		}
		if v := q.Get("proxied"); v != "" && (r.Proxied == nil || fmt.Sprint(*r.Proxied) != v) {
			continue
		}
		out = append(out, r)
	}
	return renderPage(c, out, pageDNSRecords, func(r *inventory.DNSRecord) inventory.DNSRecord { return c.st.renderRecord(c.zone, r, c.asOf) })
}
