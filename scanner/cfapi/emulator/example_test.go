package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// An emulator behind httptest: list the zones of a one-zone seed with a token.
func ExampleNew() {
	seed := &inventory.Snapshot{SchemaVersion: 1, Zones: []inventory.ZoneInventory{{
		Zone: inventory.Zone{ID: "023e105f4ecef8ad9ca31a8372d0c353", Name: "example.com", Plan: inventory.ZonePlan{LegacyID: "free"}},
	}}}
	srv, err := emulator.New(emulator.Options{Token: "secret", Seed: seed, AsOf: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	req, _ := http.NewRequest("GET", ts.URL+emulator.BasePath+"/zones?per_page=5", nil)
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var env emulator.Envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		panic(err)
	}
	var zones []inventory.Zone
	_ = json.Unmarshal(env.Result, &zones)
	fmt.Println(resp.StatusCode, env.Success, zones[0].Name, env.ResultInfo.TotalPages)
	fmt.Println(srv.Stats().Writes, "writes")
	// Output:
	// 200 true example.com 1
	// 0 writes
}
