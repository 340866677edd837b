package catalog

import (
	"regexp"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

func mustCompile(t *testing.T, p string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(p)
	if err != nil {
		t.Fatalf("compile %q: %v", p, err)
	}
	return re
}

func mustLookup(t *testing.T, c *Catalog, id string) Entry {
	t.Helper()
	e, ok := c.Lookup(vocab.RuleID(id))
	if !ok {
		t.Fatalf("no entry %q", id)
	}
	return e
}
