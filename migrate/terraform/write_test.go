//go:build unix

package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
)

// TestWriteNeverThroughLinks: in a checked-out tree, terraform/, its cleanup folder or a
// generated file that is a symbolic link is refused; nothing outside is written or removed.
func TestWriteNeverThroughLinks(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "zone_gone_example.tf")
	if err := os.WriteFile(victim, []byte(generatedMark+" looks generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := &migrate.Plan{SchemaVersion: 1}
	links := map[string]func(dir string) string{
		"terraform dir": func(dir string) string { return dir },
		"cleanup dir":   func(dir string) string { return filepath.Join(dir, CleanupDir) },
		"a file":        func(dir string) string { return filepath.Join(dir, "versions.tf") },
	}
	for name, at := range links {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "terraform")
			link := at(dir)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			target := outside
			if name == "a file" {
				target = victim
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if err := Write(dir, plan); err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("Write: %v", err)
			}
			entries, _ := os.ReadDir(outside)
			data, _ := os.ReadFile(victim)
			if len(entries) != 1 || !strings.HasPrefix(string(data), generatedMark+" looks generated") {
				t.Fatalf("outside changed: %v %q", entries, data)
			}
		})
	}
}
