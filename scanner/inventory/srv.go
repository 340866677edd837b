package inventory

import "strings"

// NormalizeDNSName lowercases a DNS name and drops surrounding space and a trailing dot, so
// names from different sources compare equal.
func NormalizeDNSName(n string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(n), "."))
}

// ComposeSRVName builds the full SRV record name _service._proto.name from the deprecated
// data fields, relative to zone (a data.name of "@" or a relative name is completed with the
// zone). missing lists the data fields that are absent, in which case name is "".
func (d *RecordData) ComposeSRVName(zone string) (name string, missing []string) {
	part := func(p *string, field string, underscore bool) string {
		if p == nil || strings.TrimSpace(*p) == "" {
			missing = append(missing, field)
			return ""
		}
		v := NormalizeDNSName(*p)
		if underscore && !strings.HasPrefix(v, "_") {
			v = "_" + v
		}
		return v
	}
	svc := part(d.Service, "data.service", true)
	proto := part(d.Proto, "data.proto", true)
	base := part(d.Name, "data.name", false)
	if len(missing) > 0 {
		return "", missing
	}
	zone = NormalizeDNSName(zone)
	switch {
	case base == "@":
		base = zone
	case zone != "" && base != zone && !strings.HasSuffix(base, "."+zone):
		base += "." + zone // a relative name
	}
	return svc + "." + proto + "." + base, nil
}
