package cli

import (
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/catalog"
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
	return &ucli.StringFlag{Name: flagColor, Value: "auto", Usage: "colour output: `auto`, always or never (NO_COLOR is honoured)"}
}

func catalogFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: flagCatalog, Usage: "add or override catalog entries from a YAML `FILE` (entries replacing a built-in id need override: true)"},
		&ucli.StringFlag{Name: flagDates, Value: "spec", Usage: "which end-of-life dates count: `spec` (the API spec's) or notice (the latest public notices)"},
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
		data, err := os.ReadFile(path)
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
