package apply

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// BindingError is a journal resumed or rolled back against another API or with credentials
// that do not reach its accounts: it is refused before anything is written.
type BindingError struct{ msg string }

func (e *BindingError) Error() string { return e.msg }

// CheckAPIURL refuses a base URL other than the one the journal's apply wrote to
// (cfapi.SameBaseURL).
func (l *Loaded) CheckAPIURL(baseURL string) error {
	if cfapi.SameBaseURL(baseURL, l.APIURL) {
		return nil
	}
	return &BindingError{msg: fmt.Sprintf("the journal's apply wrote to %s, not to %s: give --api-url %s (or SUNSET_API_URL) to go on with it",
		textsafe.Sanitize(l.APIURL), textsafe.Sanitize(baseURL), textsafe.Sanitize(l.APIURL))}
}

// CheckBinding checks, before a resume or rollback writes, that c is the client of the
// journal's apply: the same API base URL (checked first, with no request), and credentials
// that reach every account the plan writes to (one listing of the accounts). It returns a
// *BindingError when not; other errors are the listing's.
func (l *Loaded) CheckBinding(ctx context.Context, c *cfapi.Client) error {
	if err := l.CheckAPIURL(c.BaseURL()); err != nil {
		return err
	}
	if len(l.Accounts) == 0 {
		return nil
	}
	accounts, err := c.ListAccounts(ctx)
	if err != nil {
		return fmt.Errorf("listing the accounts %s reaches, to check they are the journal's: %w", c.DescribeCredentials(), err)
	}
	reached := map[string]bool{}
	for _, a := range accounts {
		reached[a.ID] = true
	}
	var missing []string
	for _, id := range l.Accounts {
		if !reached[id] {
			missing = append(missing, textsafe.Sanitize(id))
		}
	}
	if len(missing) > 0 {
		return &BindingError{msg: fmt.Sprintf("the credentials (%s) do not reach account %s of the journal's plan: they are not the credentials of its apply; use those",
			c.DescribeCredentials(), strings.Join(missing, ", "))}
	}
	return nil
}

// planAccounts are the sorted ids of the accounts p writes to: its account scopes' and its
// zones' (from snap, the plan's part of the snapshot).
func planAccounts(p *migrate.Plan, snap *inventory.Snapshot) []string {
	out := []string{}
	for _, a := range p.Accounts {
		out = append(out, a.AccountID)
	}
	zones := map[string]bool{}
	for _, z := range p.Zones {
		zones[z.ZoneID] = true
		out = append(out, z.AccountID)
	}
	if snap != nil {
		for _, z := range snap.Zones {
			if zones[z.Zone.ID] {
				out = append(out, z.Zone.Account.ID)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return out
}
