package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// The release build (.ci/release) stamps these with -ldflags "-X": the version it was given,
// the commit it built and that commit's date (not the time of the build, so that two builds
// of one commit are the same bytes). A plain go build or go install leaves them empty, and
// the build information the go command records is read instead (buildFacts).
var (
	stampedVersion string
	stampedCommit  string
	stampedDate    string
)

// Version is the sunset version: the release's, else the module version go install
// recorded (v1.2.3, or a pseudo-version of the commit), else "dev".
var Version = build().Version

// buildInfo is what `sunset version` prints.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// build is this binary's buildInfo: the stamped values, else the go command's record.
func build() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return buildFacts(buildInfo{Version: stampedVersion, Commit: stampedCommit, Date: stampedDate}, info)
}

// buildFacts fills what stamped lacks from info (nil when the binary has none): the main
// module's version, and the commit and its time that the go command records when it builds
// in a checkout (vcs.revision, vcs.time). A version is written without its "v", as releases
// name it.
func buildFacts(stamped buildInfo, info *debug.BuildInfo) buildInfo {
	b := stamped
	b.Go, b.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
	if info != nil {
		if v := info.Main.Version; b.Version == "" && v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	b.Version = strings.TrimPrefix(b.Version, "v")
	return b
}

// writeVersion writes b as text (what --version prints too) or JSON.
func writeVersion(w io.Writer, format string, b buildInfo) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	fmt.Fprintf(w, "sunset version %s\n", b.Version)
	for _, l := range []struct{ key, value string }{{"commit", b.Commit}, {"date", b.Date}} {
		if l.value != "" {
			fmt.Fprintf(w, "%-7s %s\n", l.key+":", l.value)
		}
	}
	_, err := fmt.Fprintf(w, "%-7s %s %s\n", "go:", b.Go, b.Platform)
	return err
}

// versionFormats are the formats of `sunset version --format`, the first the default.
var versionFormats = []string{"text", "json"}

// versionCommand is `sunset version`: what --version prints, or the same as JSON.
func versionCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print the version, the commit and its date, and the Go version it was built with",
		Flags: []ucli.Flag{outputFlag(versionFormats...)},
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			specs, err := outputSpecs(c, versionFormats...)
			if err != nil {
				return err
			}
			b := build()
			return s.writeOutputs(specs, func(w io.Writer, format string) error { return writeVersion(w, format, b) })
		},
	}
}

// versionFlag is the root --version (-v): the same text as `sunset version`, of which
// urfave/cli's own flag would print only the first line.
func versionFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version"}
}
