package ci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// testVersion is the version of the release the tests serve.
const testVersion = "9.9.9"

// platform is this machine as the runner names it (RUNNER_OS, RUNNER_ARCH) and as release
// assets are named (sunset_VERSION_OS_ARCH).
func platform(t testing.TB) (runnerOS, runnerArch, asset string) {
	t.Helper()
	oses := map[string]string{"linux": "Linux", "darwin": "macOS"}
	arches := map[string]string{"amd64": "X64", "arm64": "ARM64"}
	runnerOS, runnerArch = oses[runtime.GOOS], arches[runtime.GOARCH]
	if runnerOS == "" || runnerArch == "" {
		t.Skipf("the action's install is tested on linux and darwin, amd64 and arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return runnerOS, runnerArch, fmt.Sprintf("sunset_%s_%s_%s.tar.gz", testVersion, runtime.GOOS, runtime.GOARCH)
}

var (
	archiveOnce sync.Once
	archive     []byte
	archiveErr  error
)

// sunsetArchive is a release archive of this test binary named sunset, which TestMain
// makes behave as sunset.
func sunsetArchive(t testing.TB) []byte {
	t.Helper()
	archiveOnce.Do(func() { archive, archiveErr = tarGz("sunset") })
	if archiveErr != nil {
		t.Fatal(archiveErr)
	}
	return archive
}

func tarGz(name string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level: no error
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# sunset\n")}, {name, 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sha256Sums is a SHA256SUMS file for assets, in sha256sum's format.
func sha256Sums(assets map[string][]byte) []byte {
	var b strings.Builder
	for name, data := range assets {
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return []byte(b.String())
}

// releases serves a copy of the releases page as GitHub does: /latest redirects to the
// latest release's tag page, /download/vVERSION/NAME is an asset. It records the assets
// downloaded.
type releases struct {
	latest string            // "" for no release at all
	assets map[string][]byte // downloadable under /download/v<latest>/

	mu         sync.Mutex
	downloaded []string
}

func (rs *releases) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/releases/")
	switch {
	case p == "latest" && rs.latest != "":
		http.Redirect(w, r, "/releases/tag/v"+rs.latest, http.StatusFound)
	case p == "tag/v"+rs.latest && rs.latest != "":
		fmt.Fprintln(w, "release page")
	case strings.HasPrefix(p, "download/v"+rs.latest+"/") && rs.latest != "":
		name := strings.TrimPrefix(p, "download/v"+rs.latest+"/")
		data, ok := rs.assets[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		rs.mu.Lock()
		rs.downloaded = append(rs.downloaded, name)
		rs.mu.Unlock()
		_, _ = w.Write(data) // the client sees a short body as a failed download
	default:
		http.NotFound(w, r)
	}
}

func (rs *releases) downloads() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.downloaded...)
}

// serveRelease serves a release of testVersion holding this test binary for this machine
// and its SHA256SUMS (sums, when not nil, stands for the right one); the URL stands for
// https://github.com/sunsetscan/sunset/releases.
func serveRelease(t testing.TB, sums []byte) (*releases, string) {
	t.Helper()
	_, _, name := platform(t)
	assets := map[string][]byte{name: sunsetArchive(t)}
	if sums == nil {
		sums = sha256Sums(assets)
	}
	assets["SHA256SUMS"] = sums
	rs := &releases{latest: testVersion, assets: assets}
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	return rs, srv.URL + "/releases"
}
