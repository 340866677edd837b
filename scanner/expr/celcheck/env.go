package celcheck

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/containers"
	"cel.dev/cel-go/common/decls"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// Names of the CEL functions and variables that only lowering produces. They
// contain a dot, which no Rules function or list name can, so they never
// collide with anything a user writes.
const (
	fnWildcard       = "rules.wildcard"
	fnStrictWildcard = "rules.strict_wildcard"
	fnInInt          = "rules.in_int"
	fnInIP           = "rules.in_ip"
	fnInList         = "rules.in_list"
	fnBitwiseAnd     = "rules.bitwise_and"
	fnXor            = "rules.xor"
	fnIndex          = "rules.index"
	fnJSONKey        = "rules.json_key"
	fnIP             = "rules.ip"
	varLists         = "rules.lists"
)

// maxVariadic is the most arguments declared for the variadic functions
// (concat, lookup_json_*). CEL has no variadic overloads, so each arity is
// an overload of its own.
const maxVariadic = 16

var (
	// ipType is ext.Network's IP address type: Rules IP fields and literals.
	ipType = ext.IPType
	// jsonKeyType marks a key argument of lookup_json_*: a String or an Int.
	jsonKeyType = types.NewOpaqueType("rules.JSONKey")
	// listsType is the opaque value behind rules.lists: the named lists of one evaluation.
	listsType = types.NewOpaqueType("rules.Lists")
	typeA     = types.NewTypeParamType("A")
)

// celType maps a catalogue type ("String", "Array<String>", "Map<Array<String>>")
// to its CEL type. String and Bytes are both byte strings in the Rules
// language and compare with each other, so both are CEL strings.
func celType(t string) (*types.Type, error) {
	switch t {
	case "String", "Bytes":
		return types.StringType, nil
	case "Int":
		return types.IntType, nil
	case "Bool":
		return types.BoolType, nil
	case "IP":
		return ipType, nil
	case "Any":
		return typeA, nil
	}
	if inner, ok := strings.CutPrefix(t, "Array<"); ok && strings.HasSuffix(inner, ">") {
		e, err := celType(inner[:len(inner)-1])
		if err != nil {
			return nil, err
		}
		return types.NewListType(e), nil
	}
	if inner, ok := strings.CutPrefix(t, "Map<"); ok && strings.HasSuffix(inner, ">") {
		e, err := celType(inner[:len(inner)-1])
		if err != nil {
			return nil, err
		}
		return types.NewMapType(types.StringType, e), nil
	}
	return nil, fmt.Errorf("celcheck: no CEL type for catalogue type %q", t)
}

// rulesTypeName is the Rules language's name of a CEL type, for messages.
func rulesTypeName(t *types.Type) string {
	if t == nil {
		return "unknown"
	}
	switch t.Kind() {
	case types.StringKind, types.BytesKind:
		return "String"
	case types.IntKind:
		return "Int"
	case types.BoolKind:
		return "Bool"
	case types.ListKind:
		return "Array<" + rulesTypeName(t.Parameters()[0]) + ">"
	case types.MapKind:
		return "Map<" + rulesTypeName(t.Parameters()[1]) + ">"
	case types.OpaqueKind:
		switch t.TypeName() {
		case ipType.TypeName():
			return "IP"
		case jsonKeyType.TypeName():
			return "String or Int"
		}
	case types.DynKind, types.TypeParamKind:
		return "any type"
	case types.ErrorKind:
		return "invalid"
	}
	return t.String()
}

// environment is everything built once from the catalogue.
type environment struct {
	env     *cel.Env
	checker *checker.Env
	fields  *catalog.FieldCatalog
	// fieldTypes maps each field to its CEL type.
	fieldTypes map[string]*types.Type
	// The catalogue's definitions, indexed once: the catalogue's accessors
	// clone on every call, which showed in the checking profile.
	fieldDefs map[string]catalog.FieldDef
	funcDefs  map[string]catalog.FuncDef
	opDefs    map[string]catalog.OperatorDef
	// fieldNames and funcNames are sorted, for deterministic suggestions.
	fieldNames, funcNames []string
}

var (
	envOnce sync.Once
	envVal  *environment
	envErr  error
)

// sharedEnv returns the one environment, built on first use. Both the
// cel.Env and the checker.Env are safe for concurrent use.
func sharedEnv() (*environment, error) {
	envOnce.Do(func() { envVal, envErr = buildEnv(catalog.Fields()) })
	return envVal, envErr
}

// Env returns the shared CEL environment: every catalogue field as a variable
// (dotted names as they are), the Rules functions, ext.Network, and the
// internal helpers lowering uses. It is built once and safe for concurrent use.
func Env() (*cel.Env, error) {
	e, err := sharedEnv()
	if err != nil {
		return nil, err
	}
	return e.env, nil
}

func buildEnv(fc *catalog.FieldCatalog) (*environment, error) {
	opts := []cel.EnvOption{ext.Network(), cel.Variable(varLists, listsType)}
	fieldTypes := map[string]*types.Type{}
	for _, f := range fc.All() {
		t, err := celType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		fieldTypes[f.Name] = t
		opts = append(opts, cel.Variable(f.Name, t))
	}
	opts = append(opts, functionDecls()...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, err
	}
	// A checker.Env of our own lets Check run on an AST built directly (there
	// is no public way to wrap an ast.AST in a cel.Ast) and keeps the checked
	// AST and its type map even when there are errors, which the diagnostics
	// need.
	chk, err := checker.NewEnv(containers.DefaultContainer, env.CELTypeProvider())
	if err != nil {
		return nil, err
	}
	if err := chk.AddIdents(env.Variables()...); err != nil {
		return nil, err
	}
	for name, fn := range env.Functions() {
		if strings.HasPrefix(name, "rules.ip_") {
			continue
		}
		if err := chk.AddFunctions(fn); err != nil {
			return nil, err
		}
	}
	// CEL's ordering operators have one binding for every type (through the
	// Comparer trait, which the opaque IP type lacks), so a bound overload
	// cannot join them. The checker alone learns _<_(ip, ip) etc.; the
	// planner finds the binding by the overload id the checker recorded.
	for op, id := range ipOrder {
		d, err := decls.NewFunction(op, decls.Overload(id, ts(ipType, ipType), types.BoolType))
		if err != nil {
			return nil, err
		}
		if err := chk.AddFunctions(d); err != nil {
			return nil, err
		}
	}
	e := &environment{env: env, checker: chk, fields: fc, fieldTypes: fieldTypes,
		fieldDefs: map[string]catalog.FieldDef{}, funcDefs: map[string]catalog.FuncDef{}, opDefs: map[string]catalog.OperatorDef{}}
	for _, f := range fc.All() {
		e.fieldDefs[f.Name] = f
		e.fieldNames = append(e.fieldNames, f.Name)
	}
	for _, f := range fc.Functions() {
		e.funcDefs[f.Name] = f
		e.funcNames = append(e.funcNames, f.Name)
	}
	for _, o := range fc.Operators() {
		e.opDefs[o.Name] = o
	}
	return e, nil
}

// ipOrder maps each ordering operator to the overload id of its IP binding.
var ipOrder = map[string]string{
	operators.Less:          "rules_less_ip",
	operators.LessEquals:    "rules_less_equals_ip",
	operators.Greater:       "rules_greater_ip",
	operators.GreaterEquals: "rules_greater_equals_ip",
}

func fn(name string, overloads ...cel.FunctionOpt) cel.EnvOption {
	return cel.Function(name, overloads...)
}

func ov(id string, args []*types.Type, ret *types.Type, impl func(args ...ref.Val) ref.Val) cel.FunctionOpt {
	return cel.Overload(id, args, ret, cel.FunctionBinding(impl))
}

func ts(t ...*types.Type) []*types.Type { return t }

func repeat(first []*types.Type, t *types.Type, n int) []*types.Type {
	out := append([]*types.Type{}, first...)
	for range n {
		out = append(out, t)
	}
	return out
}

// functionDecls declares the Rules functions (by their own names) and the
// internal helpers. TestFunctionsMatchCatalog checks the arities against the
// catalogue.
func functionDecls() []cel.EnvOption {
	S, I, B := types.StringType, types.IntType, types.BoolType
	listA := types.NewListType(typeA)
	var concat, lookupS, lookupI []cel.FunctionOpt
	for n := 2; n <= maxVariadic; n++ {
		concat = append(concat,
			ov(fmt.Sprintf("concat_string_%d", n), repeat(nil, S, n), S, implConcatStrings),
			ov(fmt.Sprintf("concat_list_%d", n), repeat(nil, listA, n), listA, implConcatLists))
	}
	for n := 1; n <= maxVariadic; n++ {
		lookupS = append(lookupS, ov(fmt.Sprintf("lookup_json_string_%d", n), repeat(ts(S), jsonKeyType, n), S, implLookupJSONString))
		lookupI = append(lookupI, ov(fmt.Sprintf("lookup_json_integer_%d", n), repeat(ts(S), jsonKeyType, n), I, implLookupJSONInteger))
	}
	return []cel.EnvOption{
		fn("any", ov("any_list_bool", ts(types.NewListType(B)), B, implAny)),
		fn("all", ov("all_list_bool", ts(types.NewListType(B)), B, implAll)),
		fn("lower", ov("lower_string", ts(S), S, implLower)),
		fn("upper", ov("upper_string", ts(S), S, implUpper)),
		fn("len",
			ov("len_string", ts(S), I, implLen),
			ov("len_list", ts(listA), I, implLen)),
		fn("starts_with", ov("starts_with_string_string", ts(S, S), B, implStartsWith)),
		fn("ends_with", ov("ends_with_string_string", ts(S, S), B, implEndsWith)),
		fn("concat", concat...),
		fn("url_decode",
			ov("url_decode_string", ts(S), S, implURLDecode),
			ov("url_decode_string_string", ts(S, S), S, implURLDecode)),
		fn("lookup_json_string", lookupS...),
		fn("lookup_json_integer", lookupI...),
		fn("substring",
			ov("substring_string_int", ts(S, I), S, implSubstring),
			ov("substring_string_int_int", ts(S, I, I), S, implSubstring)),
		fn("remove_bytes", ov("remove_bytes_string_string", ts(S, S), S, implRemoveBytes)),
		fn("decode_base64", ov("decode_base64_string", ts(S), S, implDecodeBase64)),
		// ext.Network declares cidr(string) -> net.CIDR; this overload has
		// another arity, so the two merge.
		fn("cidr", ov("rules_cidr_ip_int_int", ts(ipType, I, I), ipType, implCIDR)),
		fn("cidr6", ov("cidr6_ip_int", ts(ipType, I), ipType, implCIDR6)),
		fn("is_timed_hmac_valid_v0",
			ov("is_timed_hmac_valid_v0_4", ts(S, S, I, I), B, implTimedHMAC),
			ov("is_timed_hmac_valid_v0_5", ts(S, S, I, I, I), B, implTimedHMAC),
			ov("is_timed_hmac_valid_v0_6", ts(S, S, I, I, I, S), B, implTimedHMAC)),
		fn("regex_replace", ov("regex_replace_string_string_string", ts(S, S, S), S, implRegexReplace)),
		fn("to_string",
			ov("to_string_int", ts(I), S, implToString),
			ov("to_string_bool", ts(B), S, implToString),
			ov("to_string_ip", ts(ipType), S, implToString)),
		fn("wildcard_replace",
			ov("wildcard_replace_3", ts(S, S, S), S, implWildcardReplace),
			ov("wildcard_replace_4", ts(S, S, S, S), S, implWildcardReplace)),
		fn("uuidv4", ov("uuidv4_string", ts(S), S, implUUIDv4)),

		// Internal helpers produced by lowering.
		fn(fnWildcard, ov("rules_wildcard", ts(S, S), B, implWildcard)),
		fn(fnStrictWildcard, ov("rules_strict_wildcard", ts(S, S), B, implStrictWildcard)),
		fn(fnInInt, ov("rules_in_int", ts(I, S), B, implInIntSet)),
		fn(fnInIP, ov("rules_in_ip", ts(ipType, S), B, implInIPSet)),
		fn(fnInList,
			ov("rules_in_list_string", ts(S, listsType, S), B, implInList),
			ov("rules_in_list_int", ts(I, listsType, S), B, implInList),
			ov("rules_in_list_ip", ts(ipType, listsType, S), B, implInList)),
		fn(fnBitwiseAnd, ov("rules_bitwise_and", ts(I, I), B, implBitwiseAnd)),
		fn(fnXor, ov("rules_xor", ts(B, B), B, implXor)),
		fn(fnJSONKey,
			ov("rules_json_key_string", ts(S), jsonKeyType, implJSONKey),
			ov("rules_json_key_int", ts(I), jsonKeyType, implJSONKey)),
		fn(fnIP, ov("rules_ip_string", ts(S), ipType, implIP)),
		fn(fnIndex, indexOverloads()...),
		// Order of IP addresses: the bindings of the overloads that the checker
		// env adds to _<_ and friends (see ipOrder); eq and ne are CEL's equality.
		fn("rules.ip_less", ov("rules_less_ip", ts(ipType, ipType), B, ipCompare(func(c int) bool { return c < 0 }))),
		fn("rules.ip_less_equals", ov("rules_less_equals_ip", ts(ipType, ipType), B, ipCompare(func(c int) bool { return c <= 0 }))),
		fn("rules.ip_greater", ov("rules_greater_ip", ts(ipType, ipType), B, ipCompare(func(c int) bool { return c > 0 }))),
		fn("rules.ip_greater_equals", ov("rules_greater_equals_ip", ts(ipType, ipType), B, ipCompare(func(c int) bool { return c >= 0 }))),
	}
}

// indexOverloads declares x[i] and m["k"] per concrete element type, so that
// a missing element yields the zero value of its type (the binding knows it)
// instead of a CEL evaluation error.
func indexOverloads() []cel.FunctionOpt {
	S, I, B := types.StringType, types.IntType, types.BoolType
	elems := []struct {
		name string
		t    *types.Type
		zero ref.Val
	}{
		{"string", S, types.String("")},
		{"int", I, types.Int(0)},
		{"bool", B, types.False},
		{"ip", ipType, ext.IP{Addr: netip.IPv4Unspecified()}},
		{"list_string", types.NewListType(S), types.NewStringList(types.DefaultTypeAdapter, nil)},
		{"list_int", types.NewListType(I), types.NewRefValList(types.DefaultTypeAdapter, nil)},
	}
	var out []cel.FunctionOpt
	for _, e := range elems {
		zero := e.zero
		out = append(out,
			ov("rules_index_list_"+e.name, ts(types.NewListType(e.t), I), e.t, func(args ...ref.Val) ref.Val { return implIndex(args, zero) }),
			ov("rules_index_map_"+e.name, ts(types.NewMapType(S, e.t), S), e.t, func(args ...ref.Val) ref.Val { return implIndex(args, zero) }))
	}
	return out
}
