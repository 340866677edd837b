package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestEmulatorMigratable serves the generator's migratable account with
// `sunset emulator --zones N --migratable`; --migratable alone is a usage error.
func TestEmulatorMigratable(t *testing.T) {
	if r := runSunset(t, nil, "emulator", "--listen", "127.0.0.1:0", "--migratable"); r.code != ExitUsage || !strings.Contains(r.stderr, "--zones") {
		t.Errorf("--migratable without --zones: want exit %d naming --zones, got %d: %s", ExitUsage, r.code, r.stderr)
	}
	emu := startEmulatorRun(t, "--zones", "3", "--migratable")
	base := emu.base
	req, err := http.NewRequest(http.MethodGet, base+"/accounts", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var env struct {
		Result []struct {
			Name string `json:"name"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if len(env.Result) != 1 || env.Result[0].Name != "Migratable Account 0001" {
		t.Errorf("accounts %+v, want the one migratable account", env.Result)
	}
	emu.stop()
}
