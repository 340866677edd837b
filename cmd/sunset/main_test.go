package main

import (
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestMain lets testscript scripts exec "sunset" as a real process built from this package.
// Under -race, that process would sleep 1 s at exit (the race runtime's atexit_sleep_ms,
// time for other threads to report): with some 200 processes started by this package, that
// was minutes of its time. Races in them are reported all the same.
func TestMain(m *testing.M) {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
	testscript.Main(m, map[string]func(){
		"sunset": func() { os.Exit(cli.Main(os.Args, cli.SystemStreams())) },
		// sunset whose scans spill their findings after every zone, as a large account's do.
		spillingSunset: func() {
			cli.SpillFindingsAfter(1)
			os.Exit(cli.Main(os.Args, cli.SystemStreams()))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script (txtar files).
func TestScripts(t *testing.T) {
	t.Parallel() // overlaps the other tests that wait on sunset processes
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			// A stable environment: no colour, no CI-specific behaviour leaking in from the host.
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GORACE", os.Getenv("GORACE")) // see TestMain
			env.Setenv("SUNSET_AS_OF", "")
			// Each script gets its own emulators (fresh state): a clean one as $API_URL and
			// one whose zone docs.example.test always fails as $FAULTY_API_URL.
			for name, faults := range map[string]emulator.FaultSpec{
				"API_URL":        {},
				"FAULTY_API_URL": {Zones: []string{"docs.example.test"}},
			} {
				srv, err := emulator.New(emulator.Options{
					AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Faults: faults,
					Token: seed.DemoToken, Email: seed.DemoEmail, Key: seed.DemoKey,
				})
				if err != nil {
					return err
				}
				ts := httptest.NewServer(srv)
				env.Defer(ts.Close)
				env.Setenv(name, ts.URL+"/client/v4")
			}
			env.Setenv("DEMO_TOKEN", seed.DemoToken)
			// A free loopback port for scripts that start `sunset emulator` themselves.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			env.Setenv("FREE_PORT", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			return ln.Close()
		},
	})
}
