package inventory

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

func TestOWASPCoreSettings(t *testing.T) {
	for _, c := range []struct {
		sens, mode string
		pl, th     int
		action     vocab.Action
	}{
		{"high", "block", 2, 40, "block"}, {"medium", "simulate", 1, 25, "log"},
		{"low", "challenge", 1, 40, "challenge"}, {"", "", 2, 40, "block"},
	} {
		pl, th, a := WAFPackage{Sensitivity: c.sens, ActionMode: c.mode}.OWASPCoreSettings()
		if pl != c.pl || th != c.th || a != c.action {
			t.Errorf("%s/%s -> PL%d %d %s", c.sens, c.mode, pl, th, a)
		}
	}
	if !(WAFPackage{DetectionMode: "anomaly"}).IsOWASP() || (WAFPackage{DetectionMode: "traditional", Name: "OWASP"}).IsOWASP() {
		t.Error("IsOWASP must go by detection mode, not by name")
	}
}
