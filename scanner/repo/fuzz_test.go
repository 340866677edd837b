package repo

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds adds the test repository's files of the given extensions as fuzz seeds.
func seeds(f *testing.F, exts ...string) {
	_ = filepath.WalkDir(testRepo, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, e := range exts {
			if filepath.Ext(p) == e {
				if data, err := os.ReadFile(p); err == nil {
					f.Add(data)
				}
			}
		}
		return nil
	})
}

// FuzzShapes feeds arbitrary bytes to the JSON and YAML shape detector (and the Terraform JSON
// reader): no panic, and every finding has a position inside the input.
func FuzzShapes(f *testing.F) {
	seeds(f, ".json", ".yaml", ".yml")
	f.Add([]byte(`{"a":[{"type":"SRV","data":{"service":1}}],"b":"\ud83d\ude00\u0000"}`))
	f.Add([]byte("a: &x [*x]\nb: *x\n"))
	c := NewChecker(nil, asOf)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{KindJSON, KindYAML, KindTerraformJSON} {
			for _, fd := range c.CheckFile("f", k, data).Findings {
				if fd.Location == nil || fd.Location.StartLine < 1 || fd.Location.StartColumn < 1 {
					t.Fatalf("%s: bad location %+v", k, fd.Location)
				}
			}
		}
	})
}

// FuzzText feeds arbitrary bytes to the text matcher, suppressions and the HCL reader.
func FuzzText(f *testing.F) {
	seeds(f, ".sh", ".py", ".go", ".js", ".md", ".tf")
	f.Add([]byte("curl -X \\\n POST /zones/${a}/filters/{{ x }}/<id> # sunset:ignore filters until=2020-01-01 r\n"))
	f.Add([]byte("/zones/{/zones/${/accounts/</organizations/"))
	c := NewChecker(nil, asOf)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{KindText, KindTerraform} {
			for _, fd := range c.CheckFile("f", k, data).Findings {
				if fd.Location == nil || fd.Location.StartLine < 1 || fd.Location.EndLine < fd.Location.StartLine {
					t.Fatalf("%s: bad location %+v", k, fd.Location)
				}
			}
		}
	})
}
