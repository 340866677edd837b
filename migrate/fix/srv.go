package fix

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// srvFields are the SRV data fields the catalog deprecates, in the order they compose.
var srvFields = []string{"service", "proto", "name"}

// srvData is an SRV record's data, as a block (provider v4's cloudflare_record) or an
// object attribute (v5's cloudflare_dns_record): its range and the deprecated fields'.
type srvData struct {
	rng    hcl.Range
	fields map[string]hclsyntax.Expression
	spans  map[string][2]int // the bytes of each field's line
}

// srvRecords drops data.service, data.proto and data.name from the module's SRV records,
// as `sunset plan` does: when they compose the record's own name (or cannot compose one),
// the record keeps its name and the three lines go; when they compose another name, which
// one is intended is the owner's call, and the record stays with a comment.
func (f *fixer) srvRecords(ev *evaluator, m *Module) {
	for _, r := range m.Resources {
		if r.Type != "cloudflare_record" && r.Type != "cloudflare_dns_record" {
			continue
		}
		typ := knownString(ev, r.Attr("type"))
		if dyn := dynamicSRVFields(r); len(dyn) > 0 && (typ == "" || strings.EqualFold(typ, "SRV")) {
			f.leave(r, r.Address()+" not rewritten: its data is a dynamic block setting "+strings.Join(dyn, ", ")+" for each record of a collection: give the SRV records their full name (_service._proto.name) in name, and drop those three fields from the data they get")
			continue
		}
		if !strings.EqualFold(typ, "SRV") {
			continue
		}
		d, ok := srvDataOf(r)
		if !ok || len(d.fields) == 0 {
			continue
		}
		var zone zoneInfo
		zoneText := normalText(exprText(r.File, r.Attr("zone_id")))
		if x := r.Attr("zone_id"); x != nil {
			zone = f.zoneOf(ev, &group{module: m, zone: x, zoneText: zoneText})
		}
		if why := srvConflict(ev, r, d, zone.name); why != "" {
			f.leave(r, r.Address()+" not rewritten: "+why)
			continue
		}
		var edits []edit
		rw := Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), New: r.Address(), Zone: zone.label(zoneText),
			Proven: "nothing to prove: the fields agree with the record's name (or cannot compose one), which the API keeps"}
		for _, name := range srvFields {
			if sp, ok := d.spans[name]; ok {
				edits = append(edits, edit{start: sp[0], end: sp[1]})
				rw.Old = append(rw.Old, r.Address()+".data."+name)
			}
		}
		rw.Notes = []string{"the outer name holds the full record name; the API refuses data.service, data.proto and data.name past their end of life"}
		f.rewriteBlock(r.File, d.rng, edits)
		f.res.Rewrites = append(f.res.Rewrites, rw)
	}
}

// srvDataOf finds a record's data block or data object attribute and its deprecated fields;
// false when the data is neither.
func srvDataOf(r *Resource) (srvData, bool) {
	d := srvData{fields: map[string]hclsyntax.Expression{}, spans: map[string][2]int{}}
	for _, b := range r.Block.Body.Blocks {
		if b.Type != "data" {
			continue
		}
		d.rng = b.Range()
		for _, name := range srvFields {
			if a, ok := b.Body.Attributes[name]; ok {
				d.fields[name] = a.Expr
				s, e := lineSpan(r.File, a.SrcRange.Start.Byte, a.SrcRange.End.Byte)
				d.spans[name] = [2]int{s, e}
			}
		}
		return d, true
	}
	a, ok := r.Block.Body.Attributes["data"]
	if !ok {
		return d, false
	}
	obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return d, false
	}
	d.rng = a.SrcRange
	for _, it := range obj.Items {
		key := hcl.ExprAsKeyword(it.KeyExpr)
		for _, name := range srvFields {
			if key == name {
				d.fields[name] = it.ValueExpr
				s, e := lineSpan(r.File, it.KeyExpr.Range().Start.Byte, it.ValueExpr.Range().End.Byte)
				d.spans[name] = [2]int{s, e}
			}
		}
	}
	return d, true
}

// srvConflict says why the fields cannot simply go ("" when they can): a value the
// repository does not hold, or a composed name that differs from the record's.
func srvConflict(ev *evaluator, r *Resource, d srvData, zone string) string {
	outer := knownString(ev, r.Attr("name"))
	vals := map[string]*string{}
	for name, x := range d.fields {
		v := knownString(ev, x)
		if v == "" {
			return "the repository does not hold the value of data." + name
		}
		vals[name] = &v
	}
	if outer == "" {
		return "the repository does not hold the value of name"
	}
	data := inventory.RecordData{Service: vals["service"], Proto: vals["proto"], Name: vals["name"]}
	composed, missing := data.ComposeSRVName(zone)
	switch {
	case len(missing) > 0:
		return "" // they cannot compose a name: the record's name stays, as plan does
	case zone == "":
		at, _ := data.ComposeSRVName("@") // without the zone: compare as written
		rel := strings.TrimSuffix(at, ".@")
		if inventory.NormalizeDNSName(outer) == rel {
			return ""
		}
		return fmt.Sprintf("data.service/proto/name compose %s, and the zone's name is not known (from a cloudflare_zone resource of the module or --snapshot) to compare it with the record name %s", rel, outer)
	}
	if full := fullName(outer, zone); full != composed {
		return fmt.Sprintf("data.service/proto/name compose %s, which conflicts with the record name %s (%s); the record name is what the API keeps once the data fields go: set name to the intended one, then run sunset fix again", composed, outer, full)
	}
	return ""
}

// fullName is a record name as written (relative, @, or full) as a full name in zone.
func fullName(name, zone string) string {
	n, z := inventory.NormalizeDNSName(name), inventory.NormalizeDNSName(zone)
	switch {
	case n == "@" || n == z:
		return z
	case strings.HasSuffix(n, "."+z):
		return n
	}
	return n + "." + z
}

// dynamicSRVFields are the deprecated fields a dynamic "data" block's content sets.
func dynamicSRVFields(r *Resource) []string {
	var out []string
	for _, b := range r.Block.Body.Blocks {
		if b.Type != "dynamic" || len(b.Labels) != 1 || b.Labels[0] != "data" {
			continue
		}
		for _, c := range b.Body.Blocks {
			if c.Type != "content" {
				continue
			}
			for _, name := range srvFields {
				if _, ok := c.Body.Attributes[name]; ok {
					out = append(out, "data."+name)
				}
			}
		}
	}
	return out
}
