package tfschema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// metaArgs are the resource arguments Terraform itself reads, never the provider.
var metaArgs = map[string]bool{"count": true, "for_each": true, "depends_on": true, "provider": true}

// metaBlocks are the nested blocks Terraform itself reads.
var metaBlocks = map[string]bool{"lifecycle": true, "provisioner": true, "connection": true}

// CheckFile parses a .tf file and checks every resource and data block in it (see
// CheckResource and CheckDataSource). A file that does not parse gives the parse errors.
func (s *Schema) CheckFile(src []byte, filename string) []error {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return []error{diags}
	}
	var errs []error
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		switch {
		case b.Type == "resource" && len(b.Labels) == 2:
			errs = append(errs, s.CheckResource(b)...)
		case b.Type == "data" && len(b.Labels) == 2:
			errs = append(errs, s.CheckDataSource(b)...)
		}
	}
	return errs
}

// CheckResource checks a resource block: its type exists, every attribute set is known and
// settable, required ones are present, literal values have the declared types and, where
// the schema lists them, one of the values the provider takes (in values Terraform
// evaluates, only the members their object constructors name and their literal parts),
// nested blocks are known and within their count, lifecycle.ignore_changes names settable
// attributes, and the references in it read attributes the provider's types have (see
// CheckReferences).
func (s *Schema) CheckResource(b *hclsyntax.Block) []error { return s.checkBlock(b, false) }

// CheckDataSource checks a data block as CheckResource checks a resource block.
func (s *Schema) CheckDataSource(b *hclsyntax.Block) []error { return s.checkBlock(b, true) }

func (s *Schema) checkBlock(b *hclsyntax.Block, data bool) []error {
	where := fmt.Sprintf("%s:%d: %s.%s", b.DefRange().Filename, b.DefRange().Start.Line, b.Labels[0], b.Labels[1])
	schemas, has, kind := s.Resources, s.HasType, "type"
	if data {
		where = fmt.Sprintf("%s:%d: data.%s.%s", b.DefRange().Filename, b.DefRange().Start.Line, b.Labels[0], b.Labels[1])
		schemas, has, kind = s.DataSources, s.HasDataType, "data source"
	}
	refs := s.CheckReferences(where, b.Body)
	res, ok := schemas[b.Labels[0]]
	if !ok {
		if has(b.Labels[0]) {
			return refs // a type these reduced schemas keep only the name of
		}
		return append([]error{fmt.Errorf("%s: no such %s in the provider %s schema", where, kind, s.Version)}, refs...)
	}
	c := &checker{}
	for _, nb := range b.Body.Blocks {
		if nb.Type == "lifecycle" && !data {
			c.ignoreChanges(where, res.Attributes, nb)
		}
	}
	c.body(where, res, b.Body, true)
	return append(c.errs, refs...)
}

// checker collects the errors of one resource.
type checker struct{ errs []error }

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// body checks a resource's or nested block's body against its schema.
func (c *checker) body(where string, sch *Block, body *hclsyntax.Body, top bool) {
	literal := map[string]cty.Value{}
	for _, name := range slices.Sorted(maps.Keys(body.Attributes)) {
		if top && metaArgs[name] {
			continue
		}
		expr := body.Attributes[name].Expr
		v, diags := expr.Value(nil)
		a, ok := sch.Attributes[name]
		switch {
		case !ok:
			c.errorf("%s.%s: no such attribute", where, name)
		case !a.Settable():
			c.errorf("%s.%s: computed only, cannot be set", where, name)
		case a.Required && nullBranch(expr):
			c.errorf("%s.%s: required, and null in a branch of its value (Terraform refuses a null required argument: a condition belongs in count)", where, name)
		case !diags.HasErrors():
			literal[name] = v
		default:
			c.expr(where+"."+name, a, expr)
		}
	}
	c.required(where, sch.Attributes, func(n string) bool { _, ok := body.Attributes[n]; return ok })
	for n, v := range literal {
		c.value(where+"."+n, sch.Attributes[n], v)
	}
	c.blocks(where, sch, body.Blocks, top)
}

// blocks checks the nested blocks of a body: known, within their count, each body checked;
// a dynamic block's content is checked as the block it generates.
func (c *checker) blocks(where string, sch *Block, blocks hclsyntax.Blocks, top bool) {
	count := map[string]int{}
	for _, nb := range blocks {
		typ, body := nb.Type, nb.Body
		if top && metaBlocks[typ] {
			continue
		}
		if typ == "dynamic" && len(nb.Labels) == 1 {
			typ = nb.Labels[0]
			body = nil
			for _, cb := range nb.Body.Blocks {
				if cb.Type == "content" {
					body = cb.Body
				}
			}
		}
		bs, ok := sch.Blocks[typ]
		if !ok {
			c.errorf("%s: no such block %s", where, typ)
			continue
		}
		count[typ]++
		if bs.MaxItems > 0 && count[typ] > bs.MaxItems {
			c.errorf("%s.%s: more than %d block(s)", where, typ, bs.MaxItems)
		}
		if body != nil {
			c.body(fmt.Sprintf("%s.%s[%d]", where, typ, count[typ]-1), bs, body, false)
		}
	}
}

// nullBranch reports whether x can come out as the literal null: a null literal, or a
// conditional with such a branch.
func nullBranch(x hclsyntax.Expression) bool {
	switch e := x.(type) {
	case *hclsyntax.LiteralValueExpr:
		return e.Val.IsNull()
	case *hclsyntax.ParenthesesExpr:
		return nullBranch(e.Expression)
	case *hclsyntax.ConditionalExpr:
		return nullBranch(e.TrueResult) || nullBranch(e.FalseResult)
	}
	return false
}

// required reports each required attribute that has is false for.
func (c *checker) required(where string, attrs map[string]*Attr, has func(string) bool) {
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		if attrs[n].Required && !has(n) {
			c.errorf("%s: required attribute %s missing", where, n)
		}
	}
}

// object checks an object value against nested attributes.
func (c *checker) object(where string, attrs map[string]*Attr, v cty.Value) {
	if v.IsNull() || !v.IsKnown() {
		return
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		c.errorf("%s: %s, want an object", where, v.Type().FriendlyName())
		return
	}
	c.required(where, attrs, func(n string) bool { return hasAttr(v, n) })
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		a, ok := attrs[k.AsString()]
		switch {
		case !ok:
			c.errorf("%s.%s: no such attribute", where, k.AsString())
		case !a.Settable():
			c.errorf("%s.%s: computed only, cannot be set", where, k.AsString())
		default:
			c.value(where+"."+k.AsString(), a, ev)
		}
	}
}

func hasAttr(v cty.Value, n string) bool {
	if v.Type().IsObjectType() {
		return v.Type().HasAttribute(n)
	}
	return v.HasIndex(cty.StringVal(n)).True()
}

// value checks one attribute's value: nested attributes recursively, plain ones by
// converting to the declared type.
func (c *checker) value(where string, a *Attr, v cty.Value) {
	switch a.Nesting {
	case "":
		ty, err := ctyjson.UnmarshalType(a.Type)
		if err != nil {
			c.errorf("%s: schema type %s: %v", where, a.Type, err)
			return
		}
		if _, err := convert.Convert(v, ty); err != nil {
			c.errorf("%s: %s does not convert to %s: %v", where, v.Type().FriendlyName(), ty.FriendlyName(), err)
		} else if len(a.Enum) > 0 && v.IsKnown() && !v.IsNull() && v.Type() == cty.String && !slices.ContainsFunc(a.Enum, func(e string) bool { return strings.EqualFold(e, v.AsString()) }) {
			c.errorf("%s: %q is not one of %q", where, v.AsString(), a.Enum)
		}
	case "single":
		c.object(where, a.Attributes, v)
	case "list", "set":
		if !v.Type().IsTupleType() && !v.Type().IsListType() && !v.Type().IsSetType() {
			c.errorf("%s: %s, want a list of objects", where, v.Type().FriendlyName())
			return
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			c.object(where+"["+k.AsBigFloat().String()+"]", a.Attributes, ev)
		}
	case "map":
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			c.object(where+"["+k.AsString()+"]", a.Attributes, ev)
		}
	default:
		c.errorf("%s: schema nesting %q", where, a.Nesting)
	}
}

// expr checks a nested attribute's value that Terraform evaluates (it holds references or
// function calls): the members its object constructors name, and the literal parts fully.
func (c *checker) expr(where string, a *Attr, e hclsyntax.Expression) {
	switch x := e.(type) {
	case *hclsyntax.TupleConsExpr:
		if a.Nesting == "list" || a.Nesting == "set" {
			for i, el := range x.Exprs {
				c.objectExpr(fmt.Sprintf("%s[%d]", where, i), a.Attributes, el)
			}
		}
	case *hclsyntax.ObjectConsExpr:
		if a.Nesting == "single" {
			c.objectExpr(where, a.Attributes, x)
		}
	}
}

// objectExpr checks an object constructor against nested attributes: each member known
// and settable, required ones present, each value checked as literal or expression.
func (c *checker) objectExpr(where string, attrs map[string]*Attr, e hclsyntax.Expression) {
	obj, ok := e.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return // a reference or a call: nothing to read
	}
	names := map[string]bool{}
	for _, item := range obj.Items {
		k, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || k.Type() != cty.String {
			continue // a computed key
		}
		name := k.AsString()
		names[name] = true
		a, ok := attrs[name]
		switch {
		case !ok:
			c.errorf("%s.%s: no such attribute", where, name)
		case !a.Settable():
			c.errorf("%s.%s: computed only, cannot be set", where, name)
		default:
			if v, diags := item.ValueExpr.Value(nil); !diags.HasErrors() {
				c.value(where+"."+name, a, v)
			} else {
				c.expr(where+"."+name, a, item.ValueExpr)
			}
		}
	}
	c.required(where, attrs, func(n string) bool { return names[n] })
}

// ignoreChanges checks that every path of lifecycle.ignore_changes names a settable
// attribute (`all` and non-literal lists aside).
func (c *checker) ignoreChanges(where string, attrs map[string]*Attr, lc *hclsyntax.Block) {
	a, ok := lc.Body.Attributes["ignore_changes"]
	if !ok {
		return
	}
	list, ok := a.Expr.(*hclsyntax.TupleConsExpr)
	if !ok {
		return
	}
	for _, e := range list.Exprs {
		tr, diags := hcl.AbsTraversalForExpr(e)
		if diags.HasErrors() {
			c.errorf("%s: ignore_changes entry is not an attribute path", where)
			continue
		}
		level, path := attrs, ""
		for i, step := range tr {
			name := tr.RootName()
			if i > 0 {
				ta, ok := step.(hcl.TraverseAttr)
				if !ok {
					break // an index: the rest is inside a collection
				}
				name = ta.Name
			}
			path += "." + name
			sa, ok := level[name]
			if !ok || !sa.Settable() {
				c.errorf("%s: ignore_changes%s is not a settable attribute", where, path)
				break
			}
			level = sa.Attributes
		}
	}
}
