package reports

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// TestFactsEndInOneFullStop: a replacement that ends a sentence itself is not followed by a
// second full stop in the GitHub annotation or the SARIF help.
func TestFactsEndInOneFullStop(t *testing.T) {
	f := &scanner.Finding{Message: "m", Replacement: "zone_defaults.nameservers.type = custom.account.", EndOfLife: "2025-03-14", DocURL: "https://developers.cloudflare.com/x"}
	msg := githubMessage(f, GitHubLineLimit, "the report")
	if strings.Contains(msg, "..") || !strings.Contains(msg, "custom.account. Documentation:") || !strings.Contains(msg, "End of life: 2025-03-14.") {
		t.Fatalf("annotation: %q", msg)
	}
	if got := sentence("a"); got != "a." {
		t.Fatalf("sentence(a) = %q", got)
	}
}
