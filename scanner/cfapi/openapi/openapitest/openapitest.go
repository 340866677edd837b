// Package openapitest gives tests the API's OpenAPI descriptions from the real-world corpus
// (the folder $SUNSET_CORPUS names), each loaded once per test binary: loading takes a while
// under -race, and a Doc is safe to share. The corpus is read at test time only, never
// copied into the project.
package openapitest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
)

// Files of the corpus.
const (
	// PlanOpsFile describes every operation sunset reads or its plans write.
	PlanOpsFile = "openapi_plan_ops.json"
	// ExcerptFile describes the deprecated endpoints and the DNS settings ones.
	ExcerptFile = "openapi_excerpt.json"
)

type loaded struct {
	once sync.Once
	doc  *openapi.Doc
	err  error
}

var (
	mu    sync.Mutex
	cache = map[string]*loaded{}
)

// Doc returns the corpus's description in file, or nil when SUNSET_CORPUS is not set; a
// file that does not load fails the test.
func Doc(t testing.TB, file string) *openapi.Doc {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		return nil
	}
	mu.Lock()
	l, ok := cache[file]
	if !ok {
		l = &loaded{}
		cache[file] = l
	}
	mu.Unlock()
	l.once.Do(func() { l.doc, l.err = openapi.Load(filepath.Join(dir, file)) })
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.doc
}

// Require is Doc for tests that need the description: without the corpus they skip.
func Require(t testing.TB, file string) *openapi.Doc {
	t.Helper()
	d := Doc(t, file)
	if d == nil {
		t.Skip("SUNSET_CORPUS is not set: the API's OpenAPI description (shared/realworld) is read at test time only")
	}
	return d
}
