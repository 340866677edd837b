package fix

import (
	"crypto/sha1" //nolint:gosec // Terraform's sha1 function
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

var ctyString = cty.String

// evaluator computes what a module's expressions are worth when everything they depend on is
// written in the repository: variable defaults, terraform.tfvars, locals, literal module
// arguments. What depends on anything else (a variable without default, a resource's
// attribute, a data source) is unknown, and the rules it drives are "not proven".
type evaluator struct {
	m      *Module
	locals map[string]cty.Value
	active map[string]bool // locals being evaluated, against cycles
	vars   map[string]cty.Value
	funcs  map[string]function.Function
}

// evaluatorOf is the module's evaluator, made once: locals are evaluated once per run, and
// a module reached again while its variables are being read (a call cycle, which Terraform
// refuses) sees them unknown instead of recursing without end.
func evaluatorOf(m *Module) *evaluator {
	if m.ev != nil {
		return m.ev
	}
	e := &evaluator{m: m, locals: map[string]cty.Value{}, active: map[string]bool{}}
	m.ev = e
	e.funcs = functions(m)
	e.vars = e.variables()
	return e
}

// variables are the module's variables: a single caller's literal argument, else the root's
// tfvars, else the default; unknown otherwise.
func (e *evaluator) variables() map[string]cty.Value {
	out := map[string]cty.Value{}
	var call *ModuleCall
	if len(e.m.CalledBy) == 1 {
		call = e.m.CalledBy[0]
	}
	for name, b := range e.m.Vars {
		v := cty.DynamicVal
		if call != nil {
			if a, ok := call.Block.Body.Attributes[name]; ok {
				v = evaluatorOf(call.Caller).value(a.Expr, nil)
			} else if d, ok := b.Body.Attributes["default"]; ok {
				v = e.literal(d.Expr)
			}
		} else if x, ok := e.m.Tfvars[name]; ok {
			v = e.literal(x)
		} else if d, ok := b.Body.Attributes["default"]; ok {
			v = e.literal(d.Expr)
		}
		out[name] = typed(b, v)
	}
	return out
}

// typed converts a variable's value to its declared type, optional attributes' defaults
// applied, as Terraform does; the value as it is when the variable has no type.
func typed(b *hclsyntax.Block, v cty.Value) cty.Value {
	a, ok := b.Body.Attributes["type"]
	if !ok || !v.IsWhollyKnown() {
		return v
	}
	ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(a.Expr)
	if diags.HasErrors() {
		return v
	}
	if defaults != nil {
		v = defaults.Apply(v)
	}
	c, err := convert.Convert(v, ty)
	if err != nil {
		return cty.DynamicVal
	}
	return c
}

// literal evaluates an expression that may not reference anything (defaults, tfvars).
func (e *evaluator) literal(x hclsyntax.Expression) cty.Value {
	v, diags := x.Value(&hcl.EvalContext{Functions: e.funcs})
	if diags.HasErrors() {
		return cty.DynamicVal
	}
	return v
}

// value evaluates x with var, local and the given extra variables (each, count, a for
// expression's); unknown where it cannot.
func (e *evaluator) value(x hclsyntax.Expression, extra map[string]cty.Value) cty.Value {
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{}, Functions: e.funcs}
	for k, v := range extra {
		ctx.Variables[k] = v
	}
	ctx.Variables["var"] = objectOrEmpty(e.vars)
	if len(e.m.Files) > 0 {
		ctx.Variables["path"] = cty.ObjectVal(map[string]cty.Value{"module": cty.StringVal(filepath.Dir(e.m.Files[0].Abs))})
	}
	ctx.Variables["local"] = objectOrEmpty(e.localsFor(x))
	for _, tr := range x.Variables() {
		if _, ok := ctx.Variables[tr.RootName()]; !ok && tr.RootName() == typeZone {
			ctx.Variables[typeZone] = e.zoneResources()
		} else if !ok {
			ctx.Variables[tr.RootName()] = cty.DynamicVal
		}
	}
	v, diags := x.Value(ctx)
	if diags.HasErrors() {
		return cty.DynamicVal
	}
	return v
}

// localsFor evaluates the locals x refers to (and theirs, through value).
func (e *evaluator) localsFor(x hclsyntax.Expression) map[string]cty.Value {
	out := map[string]cty.Value{}
	for _, tr := range x.Variables() {
		if tr.RootName() != "local" || len(tr) < 2 {
			continue
		}
		a, ok := tr[1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		out[a.Name] = e.local(a.Name)
	}
	return out
}

func (e *evaluator) local(name string) cty.Value {
	if v, ok := e.locals[name]; ok {
		return v
	}
	x, ok := e.m.Locals[name]
	if !ok || e.active[name] {
		return cty.DynamicVal
	}
	e.active[name] = true
	v := e.value(x, nil)
	delete(e.active, name)
	e.locals[name] = v
	return v
}

func objectOrEmpty(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(m)
}

// functions are the Terraform functions configuration uses for rule data and what fix
// writes itself (replace with a /regex/, lookup, contains, sort, format...), and templatefile
// reading from the module's directory.
func functions(m *Module) map[string]function.Function {
	fs := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "chomp": stdlib.ChompFunc,
		"coalesce": stdlib.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "floor": stdlib.FloorFunc,
		"format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc, "indent": stdlib.IndentFunc,
		"join": stdlib.JoinFunc, "jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
		"keys": stdlib.KeysFunc, "lookup": stdlib.LookupFunc,
		"lower": stdlib.LowerFunc, "max": stdlib.MaxFunc, "merge": stdlib.MergeFunc, "min": stdlib.MinFunc,
		"range": stdlib.RangeFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
		"reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
		"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"split": stdlib.SplitFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
		"tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tostring": stdlib.MakeToFunc(cty.String), "tobool": stdlib.MakeToFunc(cty.Bool),
		"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimspace": stdlib.TrimSpaceFunc,
		"trimsuffix": stdlib.TrimSuffixFunc, "upper": stdlib.UpperFunc, "values": stdlib.ValuesFunc,
		"zipmap": stdlib.ZipmapFunc,
	}
	fs["replace"] = replaceFunc
	fs["length"] = lengthFunc
	fs["sha1"] = sha1Func
	fs["templatefile"] = templateFileFunc(m, fs)
	return fs
}

// replaceFunc is Terraform's replace: a substring, or a regular expression between slashes.
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}, {Name: "replace", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		s, sub, rep := args[0].AsString(), args[1].AsString(), args[2].AsString()
		if len(sub) > 1 && strings.HasPrefix(sub, "/") && strings.HasSuffix(sub, "/") {
			re, err := regexp.Compile(sub[1 : len(sub)-1])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(re.ReplaceAllString(s, rep)), nil
		}
		return cty.StringVal(strings.ReplaceAll(s, sub, rep)), nil
	},
})

// lengthFunc is Terraform's length: of a collection, a tuple or an object (a for
// expression's map is one), or of a string in characters.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		switch {
		case v.Type().Equals(cty.String):
			return stdlib.Strlen(v)
		case v.Type().IsObjectType() && v.IsKnown() && !v.IsNull():
			return cty.NumberIntVal(int64(len(v.Type().AttributeTypes()))), nil
		}
		return stdlib.Length(v)
	},
})

// sha1Func is Terraform's sha1: the hex SHA-1 of a string (refs shortened in HCL).
var sha1Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		sum := sha1.Sum([]byte(args[0].AsString())) //nolint:gosec // Terraform's sha1, not security
		return cty.StringVal(hex.EncodeToString(sum[:])), nil
	},
})

// templateFileFunc renders a template file of the module's directory (path.module is the
// only way configuration names it that fix can follow: a relative path is taken from the
// module too).
func templateFileFunc(m *Module, funcs map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(m.Files) == 0 {
				return cty.DynamicVal, nil
			}
			p := filepath.FromSlash(args[0].AsString())
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(m.Files[0].Abs), p)
			}
			src, err := safefile.ReadFileNoFollow(p, maxFile)
			if err != nil {
				return cty.NilVal, err
			}
			t, diags := hclsyntax.ParseTemplate(src, p, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			vars := map[string]cty.Value{}
			if args[1].Type().IsObjectType() || args[1].Type().IsMapType() {
				for k, v := range args[1].AsValueMap() {
					vars[k] = v
				}
			}
			v, diags := t.Value(&hcl.EvalContext{Variables: vars, Functions: funcs})
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			return v, nil
		},
	})
}
