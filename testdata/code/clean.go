package clean

import (
	"fmt"
	"net/http"
)

// Records lists DNS records; filters here are query filters, not the old API.
func Records(c *http.Client, zone string) (*http.Response, error) {
	filters := "type=A"
	return c.Get(fmt.Sprintf("https://api.cloudflare.com/client/v4/zones/%s/dns_records?%s", zone, filters))
}

// Settings of this program, nothing to do with zones.
func Settings() map[string]string {
	return map[string]string{"brotli": "on", "path": "/etc/app.conf"}
}
