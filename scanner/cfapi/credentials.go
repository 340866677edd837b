package cfapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Environment variables read by CredentialsFromEnv.
const (
	EnvAPIToken = "CLOUDFLARE_API_TOKEN"
	EnvEmail    = "CLOUDFLARE_EMAIL"
	EnvAPIKey   = "CLOUDFLARE_API_KEY"
)

// ErrNoCredentials is returned by CredentialsFromEnv when neither an API token nor an
// e-mail + API key pair is set.
var ErrNoCredentials = errors.New("no credentials: set " + EnvAPIToken + ", or " + EnvEmail + " and " + EnvAPIKey)

// Credentials authenticate requests, with an API token (Authorization: Bearer) or an account
// e-mail and global API key (X-Auth-Email, X-Auth-Key). The secret is unexported and every
// way of printing a Credentials (String, GoString, Format, so %v, %+v, %#v, %s, %q) shows
// only Describe, never the secret. The zero value sends no authentication headers.
//
// The values sit behind a function so that even a raw print of a struct holding a
// Credentials in an unexported field (which fmt cannot call Format on, and whose pointers
// it would follow) shows an address, not the secret.
type Credentials struct {
	s      func() credSecret
	origin string // where the credentials came from, for Describe
}

type credSecret struct {
	token, email, key string
}

func (c Credentials) secret() credSecret {
	if c.s == nil {
		return credSecret{}
	}
	return c.s()
}

func (c Credentials) token() string { return c.secret().token }
func (c Credentials) email() string { return c.secret().email }
func (c Credentials) key() string   { return c.secret().key }

func sealed(v credSecret) func() credSecret { return func() credSecret { return v } }

// TokenCredentials returns credentials that send an API token as a bearer token.
func TokenCredentials(token string) Credentials {
	return Credentials{s: sealed(credSecret{token: strings.TrimSpace(token)})}
}

// KeyCredentials returns credentials that send an account e-mail and its global API key.
func KeyCredentials(email, key string) Credentials {
	return Credentials{s: sealed(credSecret{email: strings.TrimSpace(email), key: strings.TrimSpace(key)})}
}

// CredentialsFromEnv reads CLOUDFLARE_API_TOKEN, or else CLOUDFLARE_EMAIL together with
// CLOUDFLARE_API_KEY, through getenv (os.Getenv in the CLI, a map in tests). A token wins
// when both kinds are set. Surrounding white space (a pasted newline) is trimmed. Half of
// an e-mail + key pair is an error naming the missing variable; nothing set is
// ErrNoCredentials. Errors never contain a value.
func CredentialsFromEnv(getenv func(string) string) (Credentials, error) {
	if t := strings.TrimSpace(getenv(EnvAPIToken)); t != "" {
		c := TokenCredentials(t)
		c.origin = EnvAPIToken
		return c, nil
	}
	email, key := strings.TrimSpace(getenv(EnvEmail)), strings.TrimSpace(getenv(EnvAPIKey))
	switch {
	case email != "" && key != "":
		c := KeyCredentials(email, key)
		c.origin = EnvEmail + " + " + EnvAPIKey
		return c, nil
	case email != "":
		return Credentials{}, fmt.Errorf("%s is set but %s is not (or set %s instead)", EnvEmail, EnvAPIKey, EnvAPIToken)
	case key != "":
		return Credentials{}, fmt.Errorf("%s is set but %s is not (or set %s instead)", EnvAPIKey, EnvEmail, EnvAPIToken)
	}
	return Credentials{}, ErrNoCredentials
}

// IsZero reports whether no credentials are set.
func (c Credentials) IsZero() bool { return c.token() == "" && c.email() == "" && c.key() == "" }

// Kind is "token", "key" or "none".
func (c Credentials) Kind() string {
	switch {
	case c.token() != "":
		return "token"
	case c.email() != "" || c.key() != "":
		return "key"
	}
	return "none"
}

// Describe names the kind of credentials and where they came from, without the secret:
// "API token from CLOUDFLARE_API_TOKEN", "e-mail + API key for a***@example.com".
func (c Credentials) Describe() string {
	switch c.Kind() {
	case "token":
		if c.origin != "" {
			return "API token from " + c.origin
		}
		return "API token"
	case "key":
		d := "e-mail + API key for " + maskEmail(c.email())
		if c.origin != "" {
			d += " (from " + c.origin + ")"
		}
		return d
	}
	return "no credentials"
}

// String returns Describe in a wrapper, so that printing never shows the secret.
func (c Credentials) String() string { return "Credentials(" + c.Describe() + ")" }

// GoString keeps %#v as safe as %v.
func (c Credentials) GoString() string { return "cfapi.Credentials(" + c.Describe() + ")" }

// MarshalJSON encodes the credentials as their description, never the secret, so that a
// configuration or report that embeds them cannot leak it.
func (c Credentials) MarshalJSON() ([]byte, error) { return json.Marshal(c.Describe()) }

// Format implements fmt.Formatter so that every verb and flag prints the redacted form.
func (c Credentials) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, c.GoString())
	case verb == 'q':
		fmt.Fprintf(f, "%q", c.String())
	default:
		fmt.Fprint(f, c.String())
	}
}

// maskEmail keeps the first character of the local part and the domain: a***@example.com.
func maskEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" {
		return "***"
	}
	r := []rune(local)
	return string(r[0]) + "***@" + domain
}

// validate refuses values that cannot travel in an HTTP header, without echoing them.
func (c Credentials) validate() error {
	check := func(what, v string) error {
		for i := 0; i < len(v); i++ {
			if b := v[i]; b < 0x21 || b > 0x7e {
				return fmt.Errorf("the %s contains a character that is not allowed in an HTTP header (white space, control or non-ASCII at byte %d)", what, i)
			}
		}
		return nil
	}
	if c.token() != "" {
		return check("API token", c.token())
	}
	if c.email() != "" || c.key() != "" {
		if c.email() == "" || c.key() == "" {
			return errors.New("e-mail + API key credentials need both the e-mail and the key")
		}
		if err := check("account e-mail", c.email()); err != nil {
			return err
		}
		return check("API key", c.key())
	}
	return nil
}

// apply sets the authentication headers on a request.
func (c Credentials) apply(h http.Header) {
	switch c.Kind() {
	case "token":
		h.Set("Authorization", "Bearer "+c.token())
	case "key":
		h.Set("X-Auth-Email", c.email())
		h.Set("X-Auth-Key", c.key())
	}
}

// secrets returns the values that must never appear in output.
func (c Credentials) secrets() []string {
	var s []string
	for _, v := range []string{c.token(), c.key()} {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}
