package cli

import (
	"errors"
	"fmt"
	"net"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

func emulatorCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "emulator",
		Usage: "run the API emulator on loopback for your own tests",
		Description: "Serves the zone management API under /client/v4 from in-memory state: the demo\n" +
			"account by default, or a generated one with --zones N --seed S. Point any client at the\n" +
			"printed URL. With --openapi FILE, write bodies that break the API's published schemas\n" +
			"are refused as the API refuses them. Runs until interrupted (Ctrl-C).",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "listen", Value: "127.0.0.1:8787", Usage: "`ADDR` to listen on (loopback only)"},
			asOfFlag(),
			&ucli.StringFlag{Name: "token", Value: seed.DemoToken, Usage: "API `TOKEN` accepted as Authorization: Bearer"},
			&ucli.StringFlag{Name: "email", Value: seed.DemoEmail, Usage: "`EMAIL` accepted in X-Auth-Email"},
			&ucli.StringFlag{Name: "key", Value: seed.DemoKey, Usage: "API `KEY` accepted in X-Auth-Key"},
			&ucli.IntFlag{Name: "zones", Usage: "serve a generated account of `N` zones instead of the demo"},
			&ucli.Int64Flag{Name: "seed", Value: 1, Usage: "`SEED` of the generated account"},
			&ucli.BoolFlag{Name: "migratable", Usage: "with --zones: generate an account whose every zone a migration plan carries out by API calls alone"},
			&ucli.StringFlag{Name: "latency", Usage: "added latency per request: `DURATION` (20ms) or range (10ms-30ms)"},
			&ucli.StringFlag{Name: "faults", Usage: "inject faults: `SPEC` such as 429=0.1,5xx=0.05,drop=0.01,lost=0.02,zone=NAME,first429=1 (lost: a write is carried out, then its answer dropped; first429: every endpoint answers its first call with a 429)"},
			&ucli.StringFlag{Name: "rate-limit", Usage: "global limit per credential: `N/WINDOW` such as 1200/5m"},
			&ucli.BoolFlag{Name: "retire", Usage: "deprecated endpoints past their end of life answer as retired"},
			&ucli.StringFlag{Name: "openapi", Usage: "check every write body against the API's OpenAPI 3.0 description in `FILE` (400 with the API's error envelope on a violation)"},
		},
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opts, err := emulatorOptions(c, s)
			if err != nil {
				return err
			}
			host, _, err := net.SplitHostPort(c.String("listen"))
			if err != nil {
				return usageErrorf("--listen %q: %v", c.String("listen"), err)
			}
			if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
				return usageErrorf("--listen %q: the emulator only listens on loopback addresses", c.String("listen"))
			}
			srv, err := emulator.New(opts)
			if err != nil {
				return usageErrorf("emulator: %v", err)
			}
			ln, err := net.Listen("tcp", c.String("listen"))
			if err != nil {
				return fatalError(fmt.Errorf("cannot listen on %s: %w", c.String("listen"), err))
			}
			base := "http://" + ln.Addr().String() + "/client/v4"
			fmt.Fprintf(s.Out, "sunset emulator listening on %s\n", base)
			fmt.Fprintf(s.Out, "  as of %s, %d accounts, %d zones\n", opts.AsOf.Format(time.DateOnly), len(opts.Seed.Accounts), len(opts.Seed.Zones))
			fmt.Fprintf(s.Out, "  credentials: CLOUDFLARE_API_TOKEN=%s  or  CLOUDFLARE_EMAIL=%s CLOUDFLARE_API_KEY=%s\n", opts.Token, opts.Email, opts.Key)
			if d := opts.OpenAPI; d != nil {
				fmt.Fprintf(s.Out, "  write bodies checked against %s (%d operations, %d stale points patched)\n", d.Source(), len(d.Operations()), len(d.Patches()))
			}
			fmt.Fprintf(s.Out, "  try: SUNSET_API_URL=%s CLOUDFLARE_API_TOKEN=%s sunset scan%s\n", base, opts.Token, tryPace(opts))
			err = emulator.Serve(c.Context, ln, srv)
			if err != nil && !errors.Is(err, c.Err()) {
				return fatalError(err)
			}
			st := srv.Stats()
			fmt.Fprintf(s.Out, "sunset emulator stopped after %d requests\n", st.Total)
			return nil
		},
	}
}

// emulatorOptions turns the flags into emulator options; the credentials printed at start-up
// are the emulator's own test credentials, never a user's.
func emulatorOptions(c *ucli.Context, s *Streams) (emulator.Options, error) {
	asOf, err := s.asOf(c)
	if err != nil {
		return emulator.Options{}, err
	}
	var snap *inventory.Snapshot
	if n := c.Int("zones"); n > 0 && c.Bool("migratable") {
		snap = seed.GenerateMigratable(n, c.Int64("seed"))
	} else if n > 0 {
		snap = seed.Generate(n, c.Int64("seed"))
	} else if c.Bool("migratable") && !c.IsSet("zones") {
		return emulator.Options{}, usageErrorf("--migratable shapes a generated account: give its size with --zones N")
	} else if c.IsSet("zones") {
		return emulator.Options{}, usageErrorf("--zones %d: want a positive number of zones", n)
	} else {
		snap = seed.Demo()
	}
	opts := emulator.Options{
		AsOf: asOf, Now: s.Now, Seed: snap, Retire: c.Bool("retire"),
		Token: c.String("token"), Email: c.String("email"), Key: c.String("key"),
		Rand: c.Int64("seed"),
	}
	if v := c.String("latency"); v != "" {
		if opts.Latency, err = emulator.ParseLatency(v); err != nil {
			return opts, usageErrorf("--latency: %v", err)
		}
	}
	if v := c.String("faults"); v != "" {
		if opts.Faults, err = emulator.ParseFaults(v); err != nil {
			return opts, usageErrorf("--faults: %v", err)
		}
	}
	if v := c.String("rate-limit"); v != "" {
		if opts.RateLimit, err = emulator.ParseRateLimit(v); err != nil {
			return opts, usageErrorf("--rate-limit: %v", err)
		}
	}
	if v := c.String("openapi"); v != "" {
		// The error names the file and says whether it could not be read or not be parsed.
		if opts.OpenAPI, err = openapi.Load(v); err != nil {
			return opts, usageErrorf("--openapi: %v", err)
		}
	}
	return opts, nil
}

// tryPace is the pace the start-up's "try:" line gives the scan: unpaced (--rps 0) against
// an emulator that limits nothing, so a newcomer does not wait out the public API's budget
// on loopback; under --rate-limit, the pace that fits it.
func tryPace(opts emulator.Options) string {
	if rl := opts.RateLimit; rl.Enabled() {
		return fmt.Sprintf(" --rps %.3g", float64(rl.Requests)/rl.Window.Seconds())
	}
	return " --rps 0"
}
