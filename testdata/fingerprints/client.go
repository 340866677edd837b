package edge

import (
	"fmt"
	"net/http"
)

// WAFPackages lists the zone's previous-version WAF packages.
func WAFPackages(c *http.Client, zone string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, "https://api.cloudflare.com/client/v4/zones/"+zone+"/firewall/waf/packages", nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// Tunnels lists legacy tunnels.
func Tunnels(account string) string {
	return fmt.Sprintf("/client/v4/accounts/%s/tunnels", account)
}
