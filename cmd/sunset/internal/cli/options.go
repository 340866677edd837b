package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Commands compose their flags from small groups, as golangci-lint composes its flag sets:
// a command adds the groups it takes (source, judging, report) and its own flags, so a flag
// added to a group reaches exactly the commands that take the group. Each group resolves
// once into a value (sourceOptions, judgeOptions, reportOutput) that nothing changes after.

// sourceFlags say where the account comes from: the API (selection, access and pace) or a
// saved snapshot.
func sourceFlags() []ucli.Flag {
	return slices.Concat(
		inCategory(catSelection,
			&ucli.StringSliceFlag{Name: "account", Usage: "only account `ID` (repeatable; with zones selected, what apply writes to an account needs it)"},
			&ucli.StringSliceFlag{Name: "zone", Usage: "only zone `NAME|ID` (repeatable), live, in a snapshot, a plan or a journal"},
			&ucli.StringFlag{Name: "zone-filter", Usage: "only zones whose name matches `GLOB` (e.g. '*.example.com')"},
		),
		inCategory(catAPI,
			&ucli.StringFlag{Name: "api-url", EnvVars: []string{"SUNSET_API_URL"}, Value: cfapi.DefaultBaseURL, Usage: "API base `URL` (http:// only to loopback)"},
			&ucli.StringFlag{Name: "api-token-file", Usage: "read the API token from `FILE` (instead of CLOUDFLARE_API_TOKEN; a flag never carries the secret itself, so it stays out of shell history and process lists)"},
			&ucli.StringFlag{Name: "api-email", Usage: "account `EMAIL` for e-mail + key authentication (with --api-key-file)"},
			&ucli.StringFlag{Name: "api-key-file", Usage: "read the global API key from `FILE` (with --api-email)"},
			workersFlag(),
			&ucli.Float64Flag{Name: "rps", Value: cfapi.DefaultRPS, DefaultText: rpsDefaultText(), Usage: "requests per second shared by all workers (`RATE`; the default stays one under the API's 1,200 per 5 minutes; 0 = unpaced)"},
			&ucli.IntFlag{Name: "retries", Value: cfapi.DefaultMaxRetries, Usage: "retry a failed request (429, 5xx, network) up to `N` times with backoff; 0 = never"},
		),
		inCategory(catSnapshot,
			&ucli.StringFlag{Name: "snapshot-out", Usage: "save everything fetched to `FILE` (JSON) to re-scan or plan offline"},
			&ucli.StringFlag{Name: "snapshot", Usage: "read a saved snapshot `FILE` instead of the API (no network)"},
		),
	)
}

// workersFlag is --workers of every command that reads an account: requests in flight, which
// the scan shares among zones (the demo's scan too).
func workersFlag() ucli.Flag {
	return &ucli.IntFlag{Name: "workers", Value: collect.DefaultWorkers, Usage: "requests sent at once (`N`), shared by the zones being read: one waiting to retry gives its place to another zone's"}
}

// judgingFlags say how deprecations are judged: the date and the catalog.
func judgingFlags() []ucli.Flag {
	return inCategory(catJudging, append([]ucli.Flag{asOfFlag()}, catalogFlags()...)...)
}

// reportFlags are the outputs and the gate of a command that produces findings.
func reportFlags() []ucli.Flag {
	return inCategory(catOutput,
		&ucli.StringSliceFlag{Name: flagFormat, Usage: "output `FORMAT[:PATH]`, repeatable: " + strings.Join(reports.Formats(), ", ") + " (default table to stdout)"},
		failOnFlag(), colorFlag(),
	)
}

// outputFlag is the --format of a command with formats of its own, in the grammar of every
// command: FORMAT[:PATH], repeatable; the first format is the default, to stdout.
func outputFlag(formats ...string) ucli.Flag {
	return &ucli.StringSliceFlag{Name: flagFormat, Usage: "output `FORMAT[:PATH]`, repeatable: " + strings.Join(formats, " or ") + " (default " + formats[0] + " to stdout)"}
}

// sourceOptions is the resolved source group. creds are read once, by the command, only when
// it goes to the API (withCredentials).
type sourceOptions struct {
	snapshotIn  string
	snapshotOut string
	// baseURL is the API's base URL: --api-url, else SUNSET_API_URL, else the public API's.
	// baseURLGiven says one of the first two was given: a plan directory's apply goes to
	// where the plan was read from unless it is (planAPIURL).
	baseURL      string
	baseURLGiven bool
	creds        cfapi.Credentials
	rps          float64
	retries      int
	collect      collect.Options
	// sourceKind is what the report says was scanned: live, a snapshot, the demo.
	sourceKind string
}

// live reports whether the source is the API rather than a snapshot.
func (o *sourceOptions) live() bool { return o.snapshotIn == "" }

// resolveSource reads the source group, refusing a bad value before any request is sent.
func resolveSource(c *ucli.Context) (sourceOptions, error) {
	o := sourceOptions{sourceKind: reports.SourceLive}
	var err error
	if c.Int("workers") < 1 {
		return o, usageErrorf("--workers %d: want at least 1", c.Int("workers"))
	}
	if o.rps, err = rpsFlag(c); err != nil {
		return o, err
	}
	zoneFilter, err := zoneFilterFlag(c)
	if err != nil {
		return o, err
	}
	o.snapshotIn, o.snapshotOut = c.String("snapshot"), c.String("snapshot-out")
	if o.snapshotIn != "" {
		o.sourceKind = reports.SourceSnapshot
	}
	// Given empty (SUNSET_API_URL= in a shell that meant to unset it), it is not given.
	if o.baseURL = c.String("api-url"); o.baseURL == "" {
		o.baseURL = cfapi.DefaultBaseURL
	} else {
		o.baseURLGiven = c.IsSet("api-url")
	}
	if o.retries = c.Int("retries"); o.retries < 0 {
		return o, usageErrorf("--retries %d: want 0 or more", o.retries)
	}
	o.collect = collectOptions(c.StringSlice("account"), c.StringSlice("zone"), zoneFilter, c.Int("workers"))
	return o, nil
}

// collectOptions are the collector's options for a selection and a number of workers.
func collectOptions(accounts, zones []string, zoneFilter string, workers int) collect.Options {
	return collect.Options{
		Accounts:   accounts,
		Zones:      zones,
		ZoneFilter: zoneFilter,
		Workers:    workers,
		IsRetired:  cfapi.IsRetired,
		IsFatal:    cfapi.IsAuth,
		StatusOf:   cfapi.StatusOf,
		WaitsFor:   cfapi.WithWaitHook,
		RequestsFor: func(ctx context.Context) (context.Context, func() int) {
			n := new(atomic.Int64)
			return cfapi.WithRequestCounter(ctx, n), func() int { return int(n.Load()) }
		},
	}
}

// withCredentials is o with the credentials read (flags or environment): the one place a
// command reads them, once, when it will send requests.
func (o sourceOptions) withCredentials(c *ucli.Context, s *Streams) (sourceOptions, error) {
	creds, err := credentials(c, s)
	o.creds = creds
	return o, err
}

// newClient is the API client of the source: its URL, credentials, pace and retries.
func (o *sourceOptions) newClient() (*cfapi.Client, error) { return o.clientAt(o.baseURL) }

// clientAt is newClient sending to baseURL instead (an apply of a plan directory sends to
// where the plan was read: planAPIURL). A burst of 1 keeps every window of the API's limit
// at or under its budget.
func (o *sourceOptions) clientAt(baseURL string) (*cfapi.Client, error) {
	return cfapi.New(cfapi.Config{
		BaseURL: baseURL, Credentials: o.creds, UserAgent: cfapi.UserAgent(Version), RPS: o.rps,
		MaxRetries: maxRetries(o.retries), Burst: 1, MaxInFlight: o.workers(),
	})
}

// workers is the requests the source may have in flight (--workers): the client sends at
// most that many at once, and the scan shares them among more zones.
func (o *sourceOptions) workers() int {
	if o.collect.Workers <= 0 {
		return collect.DefaultWorkers
	}
	return o.collect.Workers
}

// credentials come from --api-token-file or --api-email + --api-key-file when given, else
// from the environment. Errors name the flag or variable, never a value.
func credentials(c *ucli.Context, s *Streams) (cfapi.Credentials, error) {
	readSecret := func(flag string) (string, error) {
		data, err := safefile.ReadFile(c.String(flag), maxSecretFile)
		if err != nil {
			return "", usageErrorf("--%s: %v", flag, err)
		}
		v := strings.TrimSpace(string(data))
		if v == "" {
			return "", usageErrorf("--%s: %s is empty", flag, c.String(flag))
		}
		return v, nil
	}
	switch {
	case c.String("api-token-file") != "":
		if c.String("api-email") != "" || c.String("api-key-file") != "" {
			return cfapi.Credentials{}, usageErrorf("--api-token-file and --api-email/--api-key-file are alternatives: give one")
		}
		tok, err := readSecret("api-token-file")
		return cfapi.TokenCredentials(tok), err
	case c.String("api-email") != "" || c.String("api-key-file") != "":
		if c.String("api-email") == "" || c.String("api-key-file") == "" {
			return cfapi.Credentials{}, usageErrorf("--api-email and --api-key-file go together")
		}
		key, err := readSecret("api-key-file")
		return cfapi.KeyCredentials(c.String("api-email"), key), err
	}
	creds, err := cfapi.CredentialsFromEnv(s.Getenv)
	if err != nil {
		if errors.Is(err, cfapi.ErrNoCredentials) {
			return cfapi.Credentials{}, usageErrorf("%v (or use --api-token-file)", err)
		}
		return cfapi.Credentials{}, usageErrorf("credentials: %v (or use --api-token-file)", err)
	}
	return creds, nil
}

// judgeOptions is the resolved judging group.
type judgeOptions struct {
	asOf    time.Time
	catalog *catalog.Catalog
}

// resolveJudging reads --as-of, --catalog and --dates.
func resolveJudging(c *ucli.Context, s *Streams) (judgeOptions, error) {
	var o judgeOptions
	var err error
	if o.asOf, err = s.asOf(c); err != nil {
		return o, err
	}
	o.catalog, err = loadCatalog(c)
	return o, err
}

// reportOutput is the resolved report group: where the findings go and the gate.
type reportOutput struct {
	formats []reports.FormatSpec
	failOn  scanner.Severity
	color   bool
}

// resolveReport reads --format, --fail-on and --color.
func resolveReport(c *ucli.Context, s *Streams) (reportOutput, error) {
	var o reportOutput
	var err error
	if o.formats, err = formatSpecs(c); err != nil {
		return o, err
	}
	if o.failOn, err = scanner.ParseSeverity(c.String(flagFailOn)); err != nil {
		return o, usageErrorf("--fail-on: %v", err)
	}
	o.color, err = s.color(c, s.OutTTY)
	return o, err
}

// formatSpecs parses --format values, defaulting to the table on stdout.
func formatSpecs(c *ucli.Context) ([]reports.FormatSpec, error) {
	values := c.StringSlice(flagFormat)
	if len(values) == 0 {
		values = []string{"table"}
	}
	specs, err := reports.ParseFormatFlags(values)
	if err != nil {
		return nil, usageErrorf("--format: %v", err)
	}
	return specs, nil
}

// outputSpecs parses the --format values of a command with formats of its own (outputFlag):
// formats[0] to stdout by default.
func outputSpecs(c *ucli.Context, formats ...string) ([]reports.FormatSpec, error) {
	values := c.StringSlice(flagFormat)
	if len(values) == 0 {
		values = formats[:1]
	}
	specs, err := reports.ParseOutputFlags(values, formats)
	if err != nil {
		return nil, usageErrorf("--format: %v", err)
	}
	return specs, nil
}

// writeOutputs writes each spec's rendering: to stdout or a file created fresh (writeTo).
func (s *Streams) writeOutputs(specs []reports.FormatSpec, render func(w io.Writer, format string) error) error {
	for _, spec := range specs {
		w, closeFn, err := s.writeTo(spec.Path)
		if err != nil {
			return err
		}
		err = render(w, spec.Format)
		if cerr := closeFn(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fatalError(fmt.Errorf("cannot write %s: %w", spec, err))
		}
	}
	return nil
}

// flagPlanDir names the plan directory (plan.json, plan.md, terraform/, snapshot.json) in
// every command: written by scan and plan, read by report, verify and apply.
const flagPlanDir = "plan-dir"

// planDirFlags are scan's and the demo's: also write the plan, and whether to verify it.
func planDirFlags() []ucli.Flag {
	return inCategory(catPlan,
		&ucli.StringFlag{Name: flagPlanDir, Usage: "also write the migration plan (plan.json, plan.md, terraform/, snapshot.json) to `DIR`"},
		oldSpelling(&ucli.StringFlag{Name: "plan"}),
		noVerifyFlag(),
	)
}

// planDirOf reads --plan-dir, or its old spelling --plan.
func planDirOf(c *ucli.Context, s *Streams) (string, error) {
	return s.renamed(c, flagPlanDir, "plan")
}

// oldSpelling is a flag's spelling of the last release: it still works for one release, with a
// deprecation line (renamed), and is hidden from help.
func oldSpelling(f *ucli.StringFlag) *ucli.StringFlag {
	f.Hidden = true
	return f
}

// renamed reads flag name or, given instead, its old spelling old, saying on stderr that the
// old one goes; both given is a usage error.
func (s *Streams) renamed(c *ucli.Context, name, old string) (string, error) {
	if !c.IsSet(old) {
		return c.String(name), nil
	}
	if c.IsSet(name) {
		return "", usageErrorf("--%s is the old spelling of --%s: give one", old, name)
	}
	s.deprecated("--"+old, "--"+name)
	return c.String(old), nil
}

// deprecated says on stderr that an old spelling still works but goes in the next release.
func (s *Streams) deprecated(old, instead string) {
	fmt.Fprintf(s.Err, "sunset: %s is deprecated and goes in the next release: use %s\n", old, instead)
}
