package cfapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCredentialsFromEnv(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		kind     string
		describe string
		err      string
	}{
		{name: "token", env: map[string]string{EnvAPIToken: testToken},
			kind: "token", describe: "API token from CLOUDFLARE_API_TOKEN"},
		{name: "token with a pasted newline", env: map[string]string{EnvAPIToken: " " + testToken + "\n"},
			kind: "token", describe: "API token from CLOUDFLARE_API_TOKEN"},
		{name: "e-mail and key", env: map[string]string{EnvEmail: testEmail, EnvAPIKey: testKey},
			kind: "key", describe: "e-mail + API key for a***@example.com (from CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY)"},
		{name: "token wins over e-mail and key", env: map[string]string{EnvAPIToken: testToken, EnvEmail: testEmail, EnvAPIKey: testKey},
			kind: "token", describe: "API token from CLOUDFLARE_API_TOKEN"},
		{name: "e-mail without key", env: map[string]string{EnvEmail: testEmail},
			err: "CLOUDFLARE_EMAIL is set but CLOUDFLARE_API_KEY is not"},
		{name: "key without e-mail", env: map[string]string{EnvAPIKey: testKey},
			err: "CLOUDFLARE_API_KEY is set but CLOUDFLARE_EMAIL is not"},
		{name: "nothing", env: map[string]string{}, err: ErrNoCredentials.Error()},
		{name: "blank values", env: map[string]string{EnvAPIToken: "  ", EnvEmail: "\t"}, err: ErrNoCredentials.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CredentialsFromEnv(envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), testToken) {
					t.Fatal("error names a secret")
				}
				if tc.name == "nothing" && !errors.Is(err, ErrNoCredentials) {
					t.Error("not ErrNoCredentials")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind() != tc.kind || c.Describe() != tc.describe {
				t.Errorf("kind %q describe %q", c.Kind(), c.Describe())
			}
		})
	}
	if d := TokenCredentials(testToken).Describe(); d != "API token" {
		t.Errorf("describe %q", d)
	}
	if d := KeyCredentials("bob@example.org", testKey).Describe(); d != "e-mail + API key for b***@example.org" {
		t.Errorf("describe %q", d)
	}
	if d := (Credentials{}).Describe(); d != "no credentials" || !(Credentials{}).IsZero() {
		t.Errorf("zero describe %q", d)
	}
}

// TestAuthHeaders: a token goes as Authorization: Bearer, e-mail + key as X-Auth-Email and
// X-Auth-Key; never both; the User-Agent is sunset/<version>.
func TestAuthHeaders(t *testing.T) {
	tests := []struct {
		name  string
		creds Credentials
		ua    string
		want  map[string]string
	}{
		{"token", TokenCredentials(testToken), "", map[string]string{
			"Authorization": "Bearer " + testToken, "X-Auth-Email": "", "X-Auth-Key": "", "User-Agent": "sunset/dev"}},
		{"e-mail + key", KeyCredentials(testEmail, testKey), UserAgent("1.4.0"), map[string]string{
			"Authorization": "", "X-Auth-Email": testEmail, "X-Auth-Key": testKey, "User-Agent": "sunset/1.4.0"}},
		{"none", Credentials{}, "custom/2", map[string]string{
			"Authorization": "", "X-Auth-Email": "", "X-Auth-Key": "", "User-Agent": "custom/2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				for h, v := range tc.want {
					if got := r.Header.Get(h); got != v {
						t.Errorf("%s = %q, want %q", h, got, v)
					}
				}
				if r.Header.Get("Accept") != "application/json" {
					t.Errorf("Accept %q", r.Header.Get("Accept"))
				}
				okEnvelope(w, map[string]any{"id": "z1"}, nil)
			})
			c, _ := testClient(t, srv.URL, func(c *Config) { c.Credentials = tc.creds; c.UserAgent = tc.ua })
			if _, err := c.GetZone(context.Background(), "z1"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		url  string
		want string // "" = refused
		err  string
	}{
		{"", DefaultBaseURL, ""},
		{"https://api.example.com/client/v4/", "https://api.example.com/client/v4", ""},
		{"http://127.0.0.1:8787", "http://127.0.0.1:8787", ""},
		{"http://127.9.8.7:1/client/v4", "http://127.9.8.7:1/client/v4", ""},
		{"http://[::1]:8787", "http://[::1]:8787", ""},
		{"http://localhost:8787", "http://localhost:8787", ""},
		{"http://LOCALHOST", "http://LOCALHOST", ""},
		{"http://api.example.com/client/v4", "", `refusing plain http:// to "api.example.com"`},
		{"http://10.0.0.1:8080", "", `refusing plain http:// to "10.0.0.1"`},
		{"http://128.0.0.1", "", "refusing plain http://"},
		{"http://localhost.evil.example", "", "refusing plain http://"},
		{"http://[::2]", "", "refusing plain http://"},
		{"ftp://127.0.0.1", "", "scheme must be https"},
		{"https://user:hunter2@api.example.com", "", "must not contain a user name or password"},
		{"https://api.example.com/v4?x=1", "", "must not have a query"},
		{"api.example.com/client/v4", "", "has no host"},
		{"https://api.example.com/%zz", "", "is not a URL"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			c, err := New(Config{BaseURL: tc.url, Credentials: TokenCredentials(testToken)})
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatal("error repeats a password")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL() != tc.want {
				t.Errorf("base %q, want %q", c.BaseURL(), tc.want)
			}
		})
	}
}

// TestSameBaseURL: base URLs compare equal up to a trailing slash and the case of the
// scheme and host, never up to the path's case, another port or another host.
func TestSameBaseURL(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com/client/v4", "https://api.example.com/client/v4/", true},
		{"HTTPS://API.Example.com/client/v4", "https://api.example.com/client/v4", true},
		{"http://127.0.0.1:8787/client/v4/", "http://127.0.0.1:8787/client/v4", true},
		{"http://127.0.0.1:8787/client/v4", "http://127.0.0.1:8788/client/v4", false},
		{"https://api.example.com/client/v4", "https://api.example.com/Client/v4", false},
		{"https://api.example.com/client/v4", "https://api.example.org/client/v4", false},
		{"https://api.example.com/client/v4", "http://api.example.com/client/v4", false},
		{"sunset demo (built-in emulator)", "sunset demo (built-in emulator)", true},
		{"", DefaultBaseURL, false},
	} {
		if got := SameBaseURL(tc.a, tc.b); got != tc.same {
			t.Errorf("SameBaseURL(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestInvalidCredentialValues(t *testing.T) {
	for _, cr := range []Credentials{
		TokenCredentials("abc def" + testToken),
		KeyCredentials(testEmail, "k\x00"+testKey),
		KeyCredentials("", testKey),
		KeyCredentials(testEmail, ""),
	} {
		_, err := New(Config{BaseURL: "https://api.example.com", Credentials: cr})
		if err == nil {
			t.Errorf("%v accepted", cr)
			continue
		}
		if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), testKey) {
			t.Errorf("error leaks the secret: %v", err)
		}
	}
}

func TestPathSegmentsAreEscaped(t *testing.T) {
	var paths []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		okEnvelope(w, map[string]any{"id": "x"}, nil)
	})
	c, _ := testClient(t, srv.URL)
	ctx := context.Background()
	if _, err := c.GetZone(ctx, "a/b?c=d#e"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetZoneSetting(ctx, "z 1", "../secret"); err != nil {
		t.Fatal(err)
	}
	want := []string{"/zones/a%2Fb%3Fc=d%23e?", "/zones/z%201/settings/..%2Fsecret?"}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	for _, bad := range []string{"", ".", ".."} {
		if _, err := c.GetZone(ctx, bad); err == nil || !strings.Contains(err.Error(), "invalid path segment") {
			t.Errorf("segment %q: %v", bad, err)
		}
	}
	if len(paths) != 2 {
		t.Errorf("refused calls sent requests: %v", paths)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := server(t, func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) })
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	})
	c, _ := testClient(t, srv.URL, func(c *Config) { c.Credentials = KeyCredentials(testEmail, testKey) })
	_, err := c.GetZone(context.Background(), "z1")
	if StatusOf(err) != http.StatusFound {
		t.Fatalf("error %v, want the 302 itself", err)
	}
	if elsewhere.Load() != 0 {
		t.Fatal("the redirect was followed with the credentials")
	}
}

// TestSecretsNeverPrinted provokes every error path with a token and with e-mail + key,
// with servers that echo the secret back, and checks that neither the errors nor any
// printing of the client, config and credentials contain it.
func TestSecretsNeverPrinted(t *testing.T) {
	echo := func(r *http.Request) string {
		return r.Header.Get("Authorization") + " " + r.Header.Get("X-Auth-Key")
	}
	paths := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"401 envelope echoing the header", func(w http.ResponseWriter, r *http.Request) {
			b, _ := json.Marshal(map[string]any{"success": false, "result": nil, "errors": []any{
				map[string]any{"code": 10000, "message": "Authentication error for " + echo(r),
					"documentation_url": "https://x/" + echo(r), "source": map[string]any{"pointer": echo(r)},
					"error_chain": []any{map[string]any{"code": 1, "message": echo(r)}}}},
				"messages": []any{echo(r)}})
			writeJSON(w, 401, string(b))
		}},
		{"plain text 404 echoing the header", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(404)
			fmt.Fprintf(w, "no route for %s", echo(r))
		}},
		{"5xx until the retries run out", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 500, `{"success":false,"errors":[{"message":"`+echo(r)+`"}],"result":null}`)
		}},
		{"success false with 200", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"success":false,"errors":[{"code":1,"message":"`+echo(r)+`"}],"result":null}`)
		}},
		{"200 that is not JSON", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<html>%s</html>", echo(r))
		}},
		{"result that does not decode", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"success":true,"errors":[],"result":"`+echo(r)+`"}`)
		}},
		{"connection reset", func(w http.ResponseWriter, r *http.Request) { hangUp(t, w) }},
		{"429 until the retries run out", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"success":false,"errors":[{"code":971,"message":"`+echo(r)+`"}],"result":null}`)
		}},
	}
	for _, creds := range []struct {
		name   string
		c      Credentials
		secret string
	}{
		{"token", TokenCredentials(testToken), testToken},
		{"e-mail + key", KeyCredentials(testEmail, testKey), testKey},
	} {
		t.Run(creds.name, func(t *testing.T) {
			check := func(what, s string) {
				t.Helper()
				if strings.Contains(s, creds.secret) {
					t.Errorf("%s leaks the secret: %s", what, s)
				}
			}
			printAll := func(what string, v any) {
				t.Helper()
				for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					check(what+" "+f, fmt.Sprintf(f, v))
				}
			}
			for _, p := range paths {
				srv := server(t, p.handler)
				cfg := Config{BaseURL: srv.URL, Credentials: creds.c, MaxRetries: 2, Sleep: newFakeClock().Sleep, Now: newFakeClock().Now}
				c, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.GetZone(context.Background(), "z1")
				if err == nil {
					t.Fatalf("%s: no error", p.name)
				}
				check(p.name+" Error()", err.Error())
				printAll(p.name+" error", err)
				var e *Error
				if errors.As(err, &e) {
					printAll(p.name+" *Error", *e)
				}
				printAll("client", c)
				printAll("config", cfg)
				printAll("config pointer", &cfg)
				// A Config does not encode (it holds functions); a value embedding its
				// credentials does, as their description.
				b, err := json.Marshal(struct{ Credentials Credentials }{cfg.Credentials})
				if err != nil || !strings.Contains(string(b), creds.c.Describe()) {
					t.Errorf("embedded credentials JSON = %s, %v; want their description in it", b, err)
				}
				check("embedded credentials JSON", string(b))
			}
			// Errors of New and of a cancelled call.
			_, err := New(Config{BaseURL: "http://api.example.com", Credentials: creds.c})
			if err == nil {
				t.Fatal("plain http to a public host accepted")
			}
			check("New error", err.Error())
			c, _ := New(Config{BaseURL: "https://api.example.com", Credentials: creds.c})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err = c.GetZone(ctx, "z1")
			check("cancelled call", fmt.Sprintf("%v %+v", err, err))
			// The credentials themselves, also as an unexported field fmt cannot format.
			printAll("credentials", creds.c)
			printAll("credentials pointer", &creds.c)
			printAll("struct with unexported credentials", struct{ c Credentials }{creds.c})
			// Marshalled, the credentials are their description: something is encoded (an
			// empty object would say nothing), and never the secret.
			b, err := json.Marshal(creds.c)
			want, _ := json.Marshal(creds.c.Describe())
			if err != nil || string(b) != string(want) {
				t.Errorf("credentials JSON = %s, %v; want the description %s", b, err, want)
			}
			check("credentials JSON", string(b))
			check("describe", creds.c.Describe())
		})
	}
}
