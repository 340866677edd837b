package openapi

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkValidateRequest measures one request body check: a rules entry point of ten
// custom rules against the description when SUNSET_CORPUS is set, else the tests' small
// document.
func BenchmarkValidateRequest(b *testing.B) {
	method, path, body := "POST", "/zones/z1/things", []byte(`{"name":"n","kind":"red","size":3}`)
	docPath := filepath.Join(b.TempDir(), "tiny.json")
	if err := os.WriteFile(docPath, []byte(tinyDoc), 0o600); err != nil {
		b.Fatal(err)
	}
	if dir := os.Getenv("SUNSET_CORPUS"); dir != "" {
		docPath = filepath.Join(dir, "openapi_plan_ops.json")
		method, path = "PUT", "/zones/z1/rulesets/phases/http_request_firewall_custom/entrypoint"
		body = []byte(`{"rules":[`)
		for i := range 10 {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, `{"action":"managed_challenge","expression":"ip.src eq 192.0.2.1","description":"d","enabled":true}`...)
		}
		body = append(body, "]}"...)
	}
	d, err := Load(docPath)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.ValidateRequest(method, path, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad measures loading and patching the plan operations' description.
func BenchmarkLoad(b *testing.B) {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		b.Skip("SUNSET_CORPUS is not set")
	}
	for b.Loop() {
		if _, err := Load(filepath.Join(dir, "openapi_plan_ops.json")); err != nil {
			b.Fatal(err)
		}
	}
}
