package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/repo"
)

// srvFields are the SRV data fields the catalog deprecates, in the order they compose.
var srvFields = []string{"service", "proto", "name"}

// naptrOnly are the data fields only NAPTR records have: a data that sets one of them may
// be a NAPTR record's, whose data.service is its own and not deprecated.
var naptrOnly = []string{"order", "preference", "regex", "replacement"}

// srvData is one place an SRV record's data fields are written: a data block (provider v4's
// cloudflare_record), a data object attribute (v5's cloudflare_dns_record) or the content
// of a dynamic "data" block; its range and the deprecated fields'.
type srvData struct {
	rng    hcl.Range
	fields map[string]hclsyntax.Expression
	spans  map[string][2]int // the bytes of each field's line
	naptr  bool              // it also sets a NAPTR field
}

// srvRecords drops data.service, data.proto and data.name from the module's records that
// are or may be SRV, as `sunset plan` does: the record keeps its name, which is what the API
// keeps once the fields go. Where the repository holds the values and they compose another
// name than the record's, which one is intended is the owner's call: the record stays, with
// a comment. Where it does not hold them (a module's variables, a collection), the fields go
// and the rewrite says it is not proven.
//
// A record whose type is not a literal (a variable, a lookup in a collection) may be SRV:
// its fields are dropped as well (proto and name are SRV's only), except data.service when
// the data also sets a NAPTR field: NAPTR records use service too, so it becomes null for
// SRV records only, in HCL (`TYPE == "SRV" ? null : VALUE`).
func (f *fixer) srvRecords(ev *evaluator, m *Module) {
	for _, r := range m.Resources {
		if (r.Type != "cloudflare_record" && r.Type != "cloudflare_dns_record") || r.Attr("type") == nil {
			continue
		}
		typ, literal := literalString(r.Attr("type"))
		if literal && !strings.EqualFold(typ, "SRV") {
			continue
		}
		for _, d := range srvDataOf(r) {
			if len(d.fields) > 0 {
				f.srvRecord(ev, m, r, d, !literal)
			}
		}
	}
}

// srvRecord rewrites (or leaves) one data of record r; maybeSRV is true when its type is not
// a literal.
func (f *fixer) srvRecord(ev *evaluator, m *Module, r *Resource, d srvData, maybeSRV bool) {
	var zone zoneInfo
	zoneText := normalText(exprText(r.File, r.Attr("zone_id")))
	if x := r.Attr("zone_id"); x != nil {
		zone = f.zoneOf(ev, &group{module: m, zone: x, zoneText: zoneText})
	}
	unknown, why := srvCheck(ev, r, d, zone.name)
	if why != "" {
		f.leave(r, r.Address()+" not rewritten: "+why)
		return
	}
	guard := maybeSRV && d.naptr
	var edits []edit
	rw := Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), New: r.Address(), Zone: zone.label(zoneText),
		Proven: "nothing to prove: the fields agree with the record's name (or cannot compose one), which the API keeps"}
	for _, name := range srvFields {
		x, ok := d.fields[name]
		if !ok {
			continue
		}
		if name == "service" && guard {
			rng := x.Range()
			edits = append(edits, edit{start: rng.Start.Byte, end: rng.End.Byte, text: srvGuard(r, x)})
			rw.Old = append(rw.Old, r.Address()+".data.service (for SRV records)")
			continue
		}
		sp := d.spans[name]
		edits = append(edits, edit{start: sp[0], end: sp[1]})
		rw.Old = append(rw.Old, r.Address()+".data."+name)
	}
	if len(unknown) > 0 {
		rw.Proven = "not proven: the repository does not hold " + strings.Join(unknown, ", ") +
			"; the record keeps its name as written, which is what the API keeps once the fields go: where they composed another name, set name to the intended one"
	}
	rw.Notes = []string{"the outer name holds the full record name; the API refuses data.service, data.proto and data.name past their end of life"}
	if maybeSRV {
		rw.Notes = append(rw.Notes, srvTypeNote(r, guard))
	}
	f.rewriteBlock(r.File, d.rng, edits)
	f.res.Rewrites = append(f.res.Rewrites, rw)
}

// srvTypeNote says how a record whose type is not a literal was rewritten.
func srvTypeNote(r *Resource, guard bool) string {
	t := normalText(exprText(r.File, r.Attr("type")))
	if guard {
		return "type is " + t + ", not a literal: data.service is kept for NAPTR records (the data sets NAPTR fields too) and null for SRV records; proto and name are SRV's only"
	}
	return "type is " + t + ", not a literal: the fields go whatever it is, as only SRV records have them (the data sets no NAPTR field)"
}

// srvGuard is data.service's value made null for SRV records: the record's type as written,
// compared with "SRV" (repo.NullWhen reads it so, and check no longer reports it).
func srvGuard(r *Resource, x hclsyntax.Expression) string {
	t, v := exprText(r.File, r.Attr("type")), exprText(r.File, x)
	switch r.Attr("type").(type) {
	case *hclsyntax.ScopeTraversalExpr, *hclsyntax.FunctionCallExpr, *hclsyntax.IndexExpr, *hclsyntax.RelativeTraversalExpr:
	default:
		t = "(" + t + ")" // an operator inside would bind otherwise
	}
	if _, ok := x.(*hclsyntax.ConditionalExpr); ok {
		v = "(" + v + ")"
	}
	return t + ` == "SRV" ? null : ` + v
}

// literalString is x's value when x is a string literal.
func literalString(x hclsyntax.Expression) (string, bool) {
	if x == nil || !isLiteral(x) {
		return "", false
	}
	v, diags := x.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.Type().Equals(cty.String) {
		return "", false
	}
	return v.AsString(), true
}

// srvDataOf finds a record's data block, data object attribute and dynamic "data" blocks'
// content, each with the deprecated fields it sets (data.service already null for SRV
// records, see srvGuard, is not one).
func srvDataOf(r *Resource) []srvData {
	var out []srvData
	for _, b := range r.Block.Body.Blocks {
		blk := b
		switch {
		case b.Type == "data":
		case b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == "data":
			blk = nil
			for _, c := range b.Body.Blocks {
				if c.Type == "content" {
					blk = c
				}
			}
		default:
			continue
		}
		if blk == nil {
			continue
		}
		d := newSRVData(blk.Range())
		for name, a := range blk.Body.Attributes {
			d.add(r.File, name, a.Expr, a.SrcRange.Start.Byte, a.SrcRange.End.Byte)
		}
		out = append(out, d)
	}
	a, ok := r.Block.Body.Attributes["data"]
	if !ok {
		return out
	}
	obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return out
	}
	d := newSRVData(a.SrcRange)
	for _, it := range obj.Items {
		d.add(r.File, hcl.ExprAsKeyword(it.KeyExpr), it.ValueExpr, it.KeyExpr.Range().Start.Byte, it.ValueExpr.Range().End.Byte)
	}
	return append(out, d)
}

func newSRVData(rng hcl.Range) srvData {
	return srvData{rng: rng, fields: map[string]hclsyntax.Expression{}, spans: map[string][2]int{}}
}

// add notes one member of the data, written from start to end.
func (d *srvData) add(file *File, name string, x hclsyntax.Expression, start, end int) {
	if slices.Contains(naptrOnly, name) {
		d.naptr = true
	}
	if !slices.Contains(srvFields, name) || repo.NullWhen(x, "SRV") {
		return
	}
	d.fields[name] = x
	s, e := lineSpan(file, start, end)
	d.spans[name] = [2]int{s, e}
}

// srvCheck compares the fields with the record's name for each instance whose values the
// repository holds. It returns what it does not hold (nothing proves those agree), and why
// the fields cannot simply go ("" when they can): a composed name that differs from the
// record's.
func srvCheck(ev *evaluator, r *Resource, d srvData, zone string) (unknown []string, why string) {
	ins, ok := instancesOf(ev, r)
	if !ok {
		return []string{"the collection " + normalText(exprText(r.File, repeatExpr(r))) + " the records come from"}, ""
	}
	seen := map[string]bool{}
	note := func(s string) {
		if !seen[s] {
			seen[s] = true
			unknown = append(unknown, s)
		}
	}
	for _, in := range ins {
		if t, ok := known(ev, r.Attr("type"), in, cty.String); ok && !t.IsNull() && !strings.EqualFold(t.AsString(), "SRV") {
			continue // this instance is not an SRV record
		}
		vals := map[string]*string{}
		complete := true
		for _, name := range srvFields {
			x, set := d.fields[name]
			if !set {
				continue
			}
			v, ok := known(ev, x, in, cty.String)
			if !ok {
				note("the value of data." + name + " (" + normalText(exprText(r.File, x)) + ")")
				complete = false
				continue
			}
			if !v.IsNull() {
				s := v.AsString()
				vals[name] = &s
			}
		}
		outer, ok := known(ev, r.Attr("name"), in, cty.String)
		if !ok || outer.IsNull() {
			note("the value of name (" + normalText(exprText(r.File, r.Attr("name"))) + ")")
			continue
		}
		if !complete {
			continue
		}
		data := inventory.RecordData{Service: vals["service"], Proto: vals["proto"], Name: vals["name"]}
		if c := srvConflict(data, outer.AsString(), zone); c != "" {
			return nil, instanceLabel(r, in) + c
		}
	}
	return unknown, ""
}

// repeatExpr is the resource's for_each, else its count.
func repeatExpr(r *Resource) hclsyntax.Expression {
	if x := r.Attr("for_each"); x != nil {
		return x
	}
	return r.Attr("count")
}

// instanceLabel names an instance of a repeated resource in a message ("" for a single one).
func instanceLabel(r *Resource, in instance) string {
	if in.key == "" {
		return ""
	}
	return "instance " + instanceAddress(r, in.key) + ": "
}

// srvConflict says why the fields cannot simply go ("" when they can): a composed name that
// differs from the record's name outer.
func srvConflict(data inventory.RecordData, outer, zone string) string {
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
