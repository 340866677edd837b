package celcheck

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// Every function of the catalogue is declared in CEL with one overload per
// arity it accepts (variadic ones up to maxVariadic extra arguments), and
// every field is a variable of the catalogue's type.
func TestFunctionsMatchCatalog(t *testing.T) {
	env, err := Env()
	if err != nil {
		t.Fatal(err)
	}
	fns := env.Functions()
	for _, f := range catalog.Fields().Functions() {
		decl, ok := fns[f.Name]
		if !ok {
			t.Errorf("function %s is not declared", f.Name)
			continue
		}
		arities := map[int]bool{}
		for _, o := range decl.OverloadDecls() {
			arities[len(o.ArgTypes())] = true
		}
		maxArgs := f.MaxArgs()
		if maxArgs < 0 {
			maxArgs = len(f.Params) - 1 + maxVariadic
			if f.Name == "concat" {
				maxArgs = maxVariadic
			}
		}
		for n := f.MinArgs(); n <= maxArgs; n++ {
			if !arities[n] {
				t.Errorf("%s: no overload with %d arguments", f.Name, n)
			}
		}
	}
	vars := map[string]bool{}
	for _, v := range env.Variables() {
		vars[v.Name()] = true
	}
	for _, f := range catalog.Fields().All() {
		if !vars[f.Name] {
			t.Errorf("field %s is not declared", f.Name)
		}
	}
}

func TestCELTypes(t *testing.T) {
	for in, want := range map[string]string{
		"String": "String", "Bytes": "String", "Int": "Int", "Bool": "Bool", "IP": "IP",
		"Array<String>": "Array<String>", "Map<Array<String>>": "Map<Array<String>>", "Array<Int>": "Array<Int>",
	} {
		ct, err := celType(in)
		if err != nil || rulesTypeName(ct) != want {
			t.Errorf("%s -> %v (%v), named %s; want %s", in, ct, err, rulesTypeName(ct), want)
		}
	}
	if _, err := celType("Float"); err == nil {
		t.Error("unknown type accepted")
	}
}
