package cli

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildFacts: a release's stamped values win; a go install of a tagged module gives its
// version, and a build in a checkout the commit and its time the go command recorded;
// without either the version is "dev", never a fixed release number.
func TestBuildFacts(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}}
	for _, tc := range []struct {
		name    string
		stamped buildInfo
		info    *debug.BuildInfo
		want    buildInfo
	}{
		{"release", buildInfo{Version: "1.2.3", Commit: "def456", Date: "2025-02-03T00:00:00Z"},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			buildInfo{Version: "1.2.3", Commit: "def456", Date: "2025-02-03T00:00:00Z"}},
		{"go install @v1.2.3", buildInfo{}, &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			buildInfo{Version: "1.2.3"}},
		{"go build in a checkout", buildInfo{}, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20250102030405-abc123"}, Settings: vcs},
			buildInfo{Version: "0.0.0-20250102030405-abc123", Commit: "abc123", Date: "2025-01-02T03:04:05Z"}},
		{"nothing known", buildInfo{}, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, buildInfo{Version: "dev"}},
		{"no build information", buildInfo{}, nil, buildInfo{Version: "dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Go, tc.want.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			if got := buildFacts(tc.stamped, tc.info); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestVersionCommand: `sunset version` and --version print the same lines; --format json
// the same facts.
func TestVersionCommand(t *testing.T) {
	text := runSunset(t, nil, "version")
	flag := runSunset(t, nil, "--version")
	if text.code != ExitOK || text.stdout != flag.stdout || !strings.HasPrefix(text.stdout, "sunset version "+Version+"\n") ||
		!strings.Contains(text.stdout, "\ngo:     "+runtime.Version()+" ") {
		t.Errorf("version:\n%s\n--version:\n%s", text.stdout, flag.stdout)
	}
	r := runSunset(t, nil, "version", "--format", "json")
	var got buildInfo
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got != build() {
		t.Errorf("version --format json: %v\n%s", err, r.stdout)
	}
}
