package client

import (
	"fmt"
	"net/http"
)

// Bookmarks lists the Access bookmarks of an account.
func Bookmarks(c *http.Client, account string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("/accounts/%s/access/bookmarks", account), nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// Colos reads the retired colo analytics.
func Colos(c *http.Client, zone string) (*http.Response, error) {
	return c.Get(fmt.Sprintf("/client/v4/zones/%s/analytics/colos", zone))
}
