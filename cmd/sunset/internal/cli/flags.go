package cli

import (
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Flag names shared by several commands.
const (
	flagFormat  = "format"
	flagFailOn  = "fail-on"
	flagAsOf    = "as-of"
	flagColor   = "color"
	flagCatalog = "catalog"
	flagDates   = "dates"
)

func asOfFlag() ucli.Flag {
	return &ucli.StringFlag{Name: flagAsOf, Usage: "judge deprecations as of `DATE` (YYYY-MM-DD; default today, UTC)", EnvVars: []string{"SUNSET_AS_OF"}}
}

func colorFlag() ucli.Flag {
	return &ucli.StringFlag{Name: flagColor, Value: "auto", Usage: "when to colour the output (`WHEN`: auto, always or never; auto honours NO_COLOR)"}
}

func catalogFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: flagCatalog, Usage: "add or override catalog entries from a YAML `FILE` (entries replacing a built-in id need override: true)"},
		&ucli.StringFlag{Name: flagDates, Value: "spec", Usage: "which end-of-life dates count (`SOURCE`: spec, the API spec's, or notice, the latest public notices)"},
	}
}

func failOnFlag() ucli.Flag {
	return &ucli.StringFlag{Name: flagFailOn, Value: "warning", Usage: "exit 1 when a finding is at or above `LEVEL`: error, warning, notice or none"}
}

// asOf reads --as-of, defaulting to today's UTC date from the injected clock.
func (s *Streams) asOf(c *ucli.Context) (time.Time, error) {
	v := c.String(flagAsOf)
	if v == "" {
		now := s.Now().UTC()
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	d, err := catalog.ParseDate(v)
	if err != nil {
		return time.Time{}, usageErrorf("--as-of %q: want a date like 2025-06-30", v)
	}
	return d.Time, nil
}

// color resolves --color for a stream.
func (s *Streams) color(c *ucli.Context, tty bool) (bool, error) {
	mode := c.String(flagColor)
	switch mode {
	case "", "auto", "always", "never":
	default:
		return false, usageErrorf("--color %q: want auto, always or never", mode)
	}
	return s.colorWanted(mode, tty), nil
}

// loadCatalog returns the embedded catalog merged with --catalog and switched to --dates.
func loadCatalog(c *ucli.Context) (*catalog.Catalog, error) {
	cat := catalog.Default()
	if path := c.String(flagCatalog); path != "" {
		data, err := safefile.ReadFile(path, maxCatalogFile)
		if err != nil {
			return nil, usageErrorf("--catalog: %v", err)
		}
		entries, err := catalog.Parse(data, path)
		if err != nil {
			return nil, usageErrorf("--catalog: %v", err)
		}
		if cat, err = cat.Merge(entries); err != nil {
			return nil, usageErrorf("--catalog %s: %v", path, err)
		}
	}
	dates := c.String(flagDates)
	if dates == "" {
		dates = "spec"
	}
	cat, err := cat.WithDates(dates)
	if err != nil {
		return nil, usageErrorf("--dates %q: %v", dates, err)
	}
	return cat, nil
}

// oneOf validates an enumerated flag value.
func oneOf(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageErrorf("--%s %q: want %s", flag, value, strings.Join(allowed, ", "))
}

// rpsDefaultText is --rps's default as help shows it: rounded down (the default stays under
// the API's budget) and as the budget it comes from, not 3.9966666666666666.
func rpsDefaultText() string {
	perWindow := math.Round(cfapi.DefaultRPS * 300)
	return fmt.Sprintf("%.2f, %s per 5 minutes", math.Floor(cfapi.DefaultRPS*100)/100, thousands(int(perWindow)))
}

// thousands writes n with a comma between thousands, as the API's documentation writes its
// limits (1,200).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// rpsFlag reads --rps before any request is sent: a rate that is not a number or infinite
// (both read as "unpaced" further down) or slower than cfapi.MinRPS (a scan that waits for
// hours and looks hung) is a usage error.
func rpsFlag(c *ucli.Context) (float64, error) {
	v := c.Float64("rps")
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v > 0 && v < cfapi.MinRPS) {
		return 0, usageErrorf("--rps %s: want 0 (unpaced) or a rate from %g requests per second up", fmt.Sprint(v), cfapi.MinRPS)
	}
	return v, nil
}

// zoneFilterFlag reads --zone-filter, a glob on zone names, and refuses a malformed one
// before any request is sent.
func zoneFilterFlag(c *ucli.Context) (string, error) {
	v := c.String("zone-filter")
	if v == "" {
		return "", nil
	}
	if _, err := path.Match(v, ""); err != nil {
		return "", usageErrorf("--zone-filter %q: %v; want a glob such as '*.example.com' (*, ?, [a-z] classes, \\ escapes)", v, err)
	}
	return v, nil
}
