package openapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tinyDoc is a small document written for these tests: literal and templated paths, an enum,
// a required member, a read-only member written as allOf (as the API's description does), a
// discriminated oneOf and response classes.
const tinyDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "tiny", "version": "1"},
  "paths": {
    "/zones/{zone_id}/things": {
      "post": {
        "operationId": "create-thing",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/thing"}}}},
        "responses": {
          "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/envelope"}}}},
          "4XX": {"description": "failure", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/failure"}}}}
        }
      },
      "get": {"operationId": "list-things", "responses": {"default": {"description": "any"}}}
    },
    "/zones/{zone_id}/things/{id}": {
      "delete": {"operationId": "delete-thing", "responses": {"200": {"description": "ok"}}}
    },
    "/zones/{zone_id}/things/special": {
      "put": {"operationId": "special", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/shape"}}}}, "responses": {"200": {"description": "ok"}}}
    }
  },
  "components": {"schemas": {
    "id": {"type": "string", "maxLength": 32},
    "thing": {
      "type": "object",
      "required": ["id", "name", "kind"],
      "properties": {
        "id": {"allOf": [{"$ref": "#/components/schemas/id"}, {"readOnly": true}]},
        "name": {"type": "string", "minLength": 1},
        "kind": {"type": "string", "enum": ["red", "blue"]},
        "size": {"type": "integer"},
        "a/b~c": {"type": "boolean"}
      }
    },
    "circle": {"type": "object", "required": ["shape", "radius"], "properties": {"shape": {"enum": ["circle"]}, "radius": {"type": "number", "minimum": 0}}},
    "square": {"type": "object", "required": ["shape", "side"], "properties": {"shape": {"enum": ["square"]}, "side": {"type": "number"}}},
    "shape": {
      "oneOf": [{"$ref": "#/components/schemas/circle"}, {"$ref": "#/components/schemas/square"}],
      "discriminator": {"propertyName": "shape", "mapping": {"circle": "#/components/schemas/circle", "square": "#/components/schemas/square"}}
    },
    "envelope": {"type": "object", "required": ["success", "result"], "properties": {"success": {"enum": [true]}, "result": {"$ref": "#/components/schemas/thing"}}},
    "failure": {"type": "object", "required": ["success", "errors"], "properties": {"success": {"enum": [false]}, "errors": {"type": "array", "items": {"type": "object", "required": ["code", "message"]}}}}
  }}
}`

func loadTiny(t *testing.T) *Doc {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, []byte(tinyDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// violationsOf returns the violations of err as "POINTER RULE" strings.
func violationsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *ValidationError, got %v", err)
	}
	var out []string
	for _, v := range ve.Violations {
		out = append(out, v.Pointer+" "+v.Rule)
	}
	return out
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: want an error naming %s, got %v", missing, err)
	}
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(garbage); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("garbage: want an error naming %s, got %v", garbage, err)
	}
	v31 := filepath.Join(dir, "v31.json")
	if err := os.WriteFile(v31, []byte(strings.Replace(tinyDoc, `"3.0.3"`, `"3.1.0"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(v31); err == nil || !strings.Contains(err.Error(), "3.1.0") {
		t.Errorf("3.1 document: want a version error, got %v", err)
	}
}

func TestOperationMatching(t *testing.T) {
	d := loadTiny(t)
	for _, c := range []struct{ method, path, want string }{
		{"post", "/zones/023e105f4ecef8ad9ca31a8372d0c353/things", "create-thing"},
		{"GET", "/zones/z1/things?page=2", "list-things"},
		{"DELETE", "/zones/z1/things/abc/", "delete-thing"},
		{"PUT", "/zones/z1/things/special", "special"}, // literal beats {id}
	} {
		op, err := d.Operation(c.method, c.path)
		if err != nil || op.ID != c.want {
			t.Errorf("%s %s: got %v, %v; want %s", c.method, c.path, op, err, c.want)
		}
	}
	for _, c := range []struct{ method, path string }{
		{"PATCH", "/zones/z1/things"},   // path known, method not
		{"GET", "/zones/z1/others"},     // path unknown
		{"GET", "/zones//things"},       // an empty segment fills no template
		{"DELETE", "/zones/z1/things/"}, // the list has no DELETE
	} {
		if _, err := d.Operation(c.method, c.path); !errors.Is(err, ErrNoOperation) {
			t.Errorf("%s %s: want ErrNoOperation, got %v", c.method, c.path, err)
		}
		if err := d.ValidateRequest(c.method, c.path, []byte(`{}`)); !errors.Is(err, ErrNoOperation) {
			t.Errorf("ValidateRequest %s %s: want ErrNoOperation, got %v", c.method, c.path, err)
		}
	}
	var names []string
	for _, op := range d.Operations() {
		names = append(names, op.String())
	}
	want := "GET /zones/{zone_id}/things,POST /zones/{zone_id}/things,PUT /zones/{zone_id}/things/special,DELETE /zones/{zone_id}/things/{id}"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("Operations:\n got %s\nwant %s", got, want)
	}
}

func TestValidateRequest(t *testing.T) {
	d := loadTiny(t)
	const path = "/zones/z1/things"
	for _, c := range []struct {
		name, body string
		want       []string // "POINTER RULE", sorted; nil = valid
	}{
		{"valid without the read-only id", `{"name":"n","kind":"red"}`, nil},
		{"a read-only member sent is ignored, not refused", `{"id":"x","name":"n","kind":"red"}`, nil},
		{"wrong enum", `{"name":"n","kind":"green"}`, []string{"/kind enum"}},
		{"missing required", `{"kind":"red"}`, []string{"/name required"}},
		{"wrong types", `{"name":1,"kind":"red","size":"big"}`, []string{"/name type", "/size type"}},
		{"escaped pointer", `{"name":"n","kind":"red","a/b~c":"yes"}`, []string{"/a~1b~0c type"}},
		{"not an object", `[1]`, []string{" type"}},
		{"not JSON", `{"name":`, []string{" json"}},
		{"empty body where one is required", ``, []string{" requestBody"}},
	} {
		err := d.ValidateRequest("POST", path, []byte(c.body))
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: want valid, got %v", c.name, err)
			}
			continue
		}
		if got := violationsOf(t, err); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: got %q, want %q (%v)", c.name, got, c.want, err)
		}
	}
	// The error text names the operation, the pointer and the rule.
	err := d.ValidateRequest("POST", path, []byte(`{"name":"n","kind":"green"}`))
	if msg := err.Error(); !strings.Contains(msg, "POST /zones/{zone_id}/things request body") || !strings.Contains(msg, "/kind:") || !strings.Contains(msg, "(enum)") {
		t.Errorf("error text %q lacks the operation, the pointer or the rule", msg)
	}
	// An operation with an optional body and none sent, or without a schema, accepts it.
	if err := d.ValidateRequest("PUT", "/zones/z1/things/special", nil); err != nil {
		t.Errorf("optional body absent: %v", err)
	}
	if err := d.ValidateRequest("DELETE", "/zones/z1/things/x", []byte(`{"anything":1}`)); err != nil {
		t.Errorf("no schema: %v", err)
	}
}

func TestValidateRequestExplainsOneOf(t *testing.T) {
	d := loadTiny(t)
	const path = "/zones/z1/things/special"
	for _, c := range []struct{ body, want string }{
		{`{"shape":"circle","radius":-1}`, "/radius minimum"},         // the discriminator picks circle
		{`{"shape":"circle"}`, "/radius required"},                    // only circle's rules apply
		{`{"shape":"triangle"}`, "/shape discriminator"},              // the tag names no alternative
		{`{"shape":"square","side":2}`, ""},                           // valid
		{`{"shape":"circle","radius":"wide"}`, "/radius type"},        // a wrong type inside
		{`{"shape":"square","side":2,"radius":1}`, ""},                // extra members are allowed
		{`{"side":2}`, "/shape discriminator"},                        // no tag at all
		{`{"shape":"square","side":"x","a":1}`, "/side type"},         // one violation of the chosen one
		{`{"shape":"circle","radius":1,"side":"x"}`, ""},              // square's rules do not apply
		{`{"shape":"circle","radius":1}`, ""},                         // valid
		{`{"shape":["circle"],"radius":1}`, "/shape discriminator"},   // a tag that is not a string
		{`{"shape":"circle","radius":1,"shape2":"square"}`, ""},       // unrelated member
		{`{"shape":"square","side":1,"shape2":"circle","r":"x"}`, ""}, // unrelated members
	} {
		err := d.ValidateRequest("PUT", path, []byte(c.body))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: want valid, got %v", c.body, err)
			}
			continue
		}
		if got := strings.Join(violationsOf(t, err), ","); got != c.want {
			t.Errorf("%s: got %q, want %q (%v)", c.body, got, c.want, err)
		}
	}
	err := d.ValidateRequest("PUT", path, []byte(`{"shape":"triangle"}`))
	if !strings.Contains(err.Error(), "want one of circle, square") {
		t.Errorf("a bad tag should list the tags: %v", err)
	}
}

func TestValidateResponse(t *testing.T) {
	d := loadTiny(t)
	const path = "/zones/z1/things"
	ok := `{"success":true,"result":{"id":"abc","name":"n","kind":"red"}}`
	if err := d.ValidateResponse("POST", path, 200, []byte(ok)); err != nil {
		t.Errorf("valid 200: %v", err)
	}
	// As a response, the read-only id is required.
	got := violationsOf(t, d.ValidateResponse("POST", path, 200, []byte(`{"success":true,"result":{"name":"n","kind":"red"}}`)))
	if strings.Join(got, ",") != "/result/id required" {
		t.Errorf("response without id: got %q", got)
	}
	// 404 falls in the 4XX class.
	if err := d.ValidateResponse("POST", path, 404, []byte(`{"success":false,"errors":[{"code":1,"message":"m"}]}`)); err != nil {
		t.Errorf("404 as 4XX: %v", err)
	}
	got = violationsOf(t, d.ValidateResponse("POST", path, 400, []byte(`{"success":false,"errors":[{"message":"m"}]}`)))
	if strings.Join(got, ",") != "/errors/0/code required" {
		t.Errorf("400 without code: got %q", got)
	}
	// A status the operation does not describe, and default.
	got = violationsOf(t, d.ValidateResponse("POST", path, 500, []byte(`{}`)))
	if strings.Join(got, ",") != " responses" {
		t.Errorf("500: got %q", got)
	}
	if err := d.ValidateResponse("GET", path, 503, []byte(`"anything"`)); err != nil {
		t.Errorf("default response without schema: %v", err)
	}
}

func TestConcurrentValidation(t *testing.T) {
	d := loadTiny(t)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := d.ValidateRequest("PUT", "/zones/z/things/special", []byte(`{"shape":"circle","radius":-1}`)); err == nil {
					errs[i] = errors.New("an invalid body passed")
					return
				}
				if err := d.ValidateRequest("POST", "/zones/z/things", []byte(`{"name":"n","kind":"red"}`)); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// recordDoc has the DNS record pattern of the API's description: required members listed
// beside a oneOf, read-only in every alternative (stamp) or in some (content).
const recordDoc = `{
  "openapi": "3.0.3", "info": {"title": "records", "version": "1"},
  "paths": {"/records": {"post": {
    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/record"}}}},
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/record"}}}}}}}},
  "components": {"schemas": {
    "base": {"properties": {"stamp": {"type": "string", "readOnly": true}}},
    "a": {"allOf": [{"properties": {"kind": {"enum": ["a"]}, "content": {"type": "string"}}}, {"$ref": "#/components/schemas/base"}]},
    "srv": {"allOf": [{"properties": {"kind": {"enum": ["srv"]}, "content": {"type": "string", "readOnly": true}, "port": {"type": "integer"}}, "required": ["port"]}, {"$ref": "#/components/schemas/base"}]},
    "record": {"oneOf": [{"$ref": "#/components/schemas/a"}, {"$ref": "#/components/schemas/srv"}], "required": ["kind", "content", "stamp"], "type": "object"}
  }}
}`

func TestRequiredBesideOneOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.json")
	if err := os.WriteFile(path, []byte(recordDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"kind":"a","content":"x"}`, ""},            // stamp is read-only everywhere
		{`{"kind":"srv","port":1}`, ""},               // content is read-only for srv
		{`{"kind":"a"}`, "/content required"},         // but not for a
		{`{"kind":"srv"}`, "/port required"},          // srv's own rule
		{`{"kind":"mx","content":"x"}`, "/kind enum"}, // no alternative's tag
	} {
		err := d.ValidateRequest("POST", "/records", []byte(c.body))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: want valid, got %v", c.body, err)
			}
			continue
		}
		if got := strings.Join(violationsOf(t, err), ","); got != c.want {
			t.Errorf("%s: got %q, want %q (%v)", c.body, got, c.want, err)
		}
	}
	// In a response, read-only members are required.
	if got := strings.Join(violationsOf(t, d.ValidateResponse("POST", "/records", 200, []byte(`{"kind":"a","content":"x"}`))), ","); got != "/stamp required" {
		t.Errorf("response without stamp: got %q", got)
	}
}

func TestLoadWithoutComponents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bare.json")
	doc := `{"openapi":"3.0.0","info":{"title":"bare","version":"1"},"paths":{"/x":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["a"]}}}},"responses":{"200":{"description":"ok"}}}}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Patches()) != 0 {
		t.Errorf("patches on a document without the stale points: %q", d.Patches())
	}
	if got := strings.Join(violationsOf(t, d.ValidateRequest("POST", "/x", []byte(`{}`))), ","); got != "/a required" {
		t.Errorf("got %q", got)
	}
}
