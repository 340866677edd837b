package tfrun

import (
	"encoding/pem"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// Emulator is the API emulator served over TLS in-process, for the provider to plan and
// apply against.
//
// TLS because provider v4 only speaks https: it builds its URL as
// https://CLOUDFLARE_API_HOSTNAME + CLOUDFLARE_API_BASE_PATH. The test server's certificate
// (for 127.0.0.1) is written to a file the terraform process trusts through SSL_CERT_FILE,
// which Go's crypto/x509 reads on Linux and the BSDs in place of the system roots.
type Emulator struct {
	*emulator.Server
	// URL is the API's base URL, https://127.0.0.1:PORT/client/v4.
	URL string
	// CertFile is the PEM file of the server's certificate.
	CertFile string
	host     string // 127.0.0.1:PORT
	opts     emulator.Options
}

// Emulate starts an emulator made from opts (Token, or Email and Key, are the credentials
// Env hands the provider) and stops it when t ends.
func Emulate(t testing.TB, opts emulator.Options) *Emulator {
	t.Helper()
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(srv)
	t.Cleanup(ts.Close)
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(t.TempDir(), "emulator.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(cert, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return &Emulator{Server: srv, URL: ts.URL + emulator.BasePath, CertFile: cert, host: u.Host, opts: opts}
}

// Env is the environment that points provider v4 (CLOUDFLARE_API_HOSTNAME and
// CLOUDFLARE_API_BASE_PATH) and provider v5 (CLOUDFLARE_BASE_URL) at the emulator, with its
// credentials and its certificate trusted. A failed call is not retried: the test fails at
// once with the API's error.
func (e *Emulator) Env() []string {
	env := []string{
		"CLOUDFLARE_API_HOSTNAME=" + e.host,
		"CLOUDFLARE_API_BASE_PATH=" + emulator.BasePath,
		"CLOUDFLARE_BASE_URL=" + e.URL,
		"CLOUDFLARE_RETRIES=0",
		"SSL_CERT_FILE=" + e.CertFile,
	}
	if e.opts.Token != "" {
		return append(env, "CLOUDFLARE_API_TOKEN="+e.opts.Token)
	}
	return append(env, "CLOUDFLARE_EMAIL="+e.opts.Email, "CLOUDFLARE_API_KEY="+e.opts.Key)
}
