// Command release builds sunset's release archives; .ci/release runs it from the top of the
// repository:
//
//	.ci/release [--targets OS/ARCH,...] VERSION [DIR]
//
// It cross-builds sunset for linux, darwin and windows on amd64 and arm64 from the commit
// checked out (a tree with changes is refused: the binaries say which commit they are), with
// -trimpath, cgo off, no build id, and the version, the commit and the commit's date stamped
// in, so that two builds of one commit are the same bytes wherever they run. Each binary goes
// into DIR (default dist/) as sunset_VERSION_OS_ARCH.tar.gz (sunset.exe in a .zip for
// windows), archived with fixed times, owner and order, and SHA256SUMS lists them.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// cliPackage is the package whose variables the build stamps (cli/version.go).
const cliPackage = "github.com/sunsetscan/sunset/cmd/sunset/internal/cli"

// defaultTargets are the platforms of a release.
var defaultTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// releaseVersion is a version as releases name it: 1.2.3, a pre-release or build suffix
// allowed, a leading v dropped.
var releaseVersion = regexp.MustCompile(`^v?([0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.+-]+)?)$`)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	version, dir string
	targets      []string
}

// parseArgs reads the command line; cwd is where a relative DIR is (the caller's directory:
// .ci/release runs this in the repository).
func parseArgs(args []string) (options, error) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	targets := fs.String("targets", strings.Join(defaultTargets, ","), "the `OS/ARCH` platforms to build, comma-separated")
	cwd := fs.String("cwd", "", "the directory a relative DIR is in (default: this one)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return options{}, fmt.Errorf("usage: .ci/release [--targets OS/ARCH,...] VERSION [DIR]")
	}
	m := releaseVersion.FindStringSubmatch(fs.Arg(0))
	if m == nil {
		return options{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH, such as 1.2.3 or v1.2.3-rc.1", fs.Arg(0))
	}
	o := options{version: m[1], dir: "dist", targets: strings.Split(*targets, ",")}
	if fs.NArg() == 2 {
		o.dir = fs.Arg(1)
	}
	if !filepath.IsAbs(o.dir) && *cwd != "" {
		o.dir = filepath.Join(*cwd, o.dir)
	}
	for _, t := range o.targets {
		if goos, goarch, ok := strings.Cut(t, "/"); !ok || goos == "" || goarch == "" {
			return options{}, fmt.Errorf("--targets %q: want OS/ARCH pairs such as linux/amd64", t)
		}
	}
	return o, nil
}

// run builds the release the command line asks for, in the repository at the working
// directory, and says on w what it wrote.
func run(ctx context.Context, args []string, w io.Writer) error {
	o, err := parseArgs(args)
	if err != nil {
		return err
	}
	commit, date, err := headCommit(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "sunset-release-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// Every binary is built before DIR gets a file: a failed build leaves no partial release.
	bins := make([]string, len(o.targets))
	for i, t := range o.targets {
		goos, goarch, _ := strings.Cut(t, "/")
		if bins[i], err = buildBinary(ctx, tmp, goos, goarch, stamps(o.version, commit, date)); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	var archives []string
	for i, t := range o.targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name, err := writeArchive(o.dir, o.version, goos, goarch, bins[i], date)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		archives = append(archives, name)
		fmt.Fprintf(w, "%s\n", filepath.Join(o.dir, name))
	}
	if err := writeSums(o.dir, archives); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", filepath.Join(o.dir, sumsFile))
	return nil
}

// headCommit is the commit checked out and its committer date, refused when the tree has
// changes (tracked or not, ignored files aside): the binaries would say another commit.
func headCommit(ctx context.Context) (string, time.Time, error) {
	status, err := git(ctx, "status", "--porcelain")
	if err != nil {
		return "", time.Time{}, err
	}
	if status != "" {
		return "", time.Time{}, fmt.Errorf("the tree has changes that are not committed (git status): a release is built from a commit\n%s", status)
	}
	commit, err := git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", time.Time{}, err
	}
	epoch, err := git(ctx, "log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return "", time.Time{}, err
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("commit date %q: %w", epoch, err)
	}
	return commit, time.Unix(secs, 0).UTC(), nil
}

// git runs git with args and returns its output, trimmed.
func git(ctx context.Context, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// stamps are the -ldflags of a release build: symbols and DWARF dropped, no build id (it
// hashes the inputs' paths on some platforms), and the version, commit and date set.
func stamps(version, commit string, date time.Time) string {
	return strings.Join([]string{
		"-s", "-w", "-buildid=",
		"-X", cliPackage + ".stampedVersion=" + version,
		"-X", cliPackage + ".stampedCommit=" + commit,
		"-X", cliPackage + ".stampedDate=" + date.Format(time.RFC3339),
	}, " ")
}

// buildBinary builds sunset for one platform into dir and returns its path. The environment
// is the caller's but for what changes the output: the platform, cgo, the CPU levels and
// GOFLAGS are set, the same for every build. The go command's own VCS record is left out
// (-buildvcs=false): it finds a clone's .git directory but not a worktree's .git file, so it
// would make a worktree's release differ from a clone's; the stamps say the commit instead.
func buildBinary(ctx context.Context, dir, goos, goarch, ldflags string) (string, error) {
	out := filepath.Join(dir, goos+"-"+goarch, binaryName(goos))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/sunset")
	cmd.Env = append(withoutBuildEnv(os.Environ()),
		"GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, stderr.String())
	}
	return out, nil
}

// withoutBuildEnv is env without the variables buildBinary sets.
func withoutBuildEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// binaryName is sunset's file name on a platform.
func binaryName(goos string) string {
	if goos == "windows" {
		return "sunset.exe"
	}
	return "sunset"
}
