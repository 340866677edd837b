package cfapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
)

// Largest page sizes the endpoints accept (domain facts, "Pagination"); dns_records allows
// millions, a few thousand keeps one page's body reasonable. 0 means the endpoint takes no
// per_page and the client follows result_info only.
const (
	perPageZones       = 50
	perPageAccounts    = 50
	perPageFirewall    = 100
	perPageFilters     = 100
	perPageWAF         = 100
	perPageRateLimits  = 1000
	perPageDNSRecords  = 5000
	perPageUnspecified = 0
	// The Access applications and notification policies lists answer with result_info
	// (page, per_page, count, total_count), but their description (the OpenAPI snapshot of
	// 2024-08-06, openapi_plan_ops.json) declares no page or per_page parameter and no
	// maximum: the client sends none on the first page and follows the server's pages, so
	// a list longer than the server's default page is still read whole.
	perPageAccessApps           = perPageUnspecified
	perPageNotificationPolicies = perPageUnspecified
)

// maxPages stops a server that keeps announcing more pages from looping the client forever.
const maxPages = 100000

// listAll is the one collector of paginated lists: it asks for page 1, 2, ... with per_page
// (when the endpoint takes it) and decodes every page's result array into []T.
//
// It stops when:
//   - result_info is missing (the endpoint is not paginated: one page);
//   - the page came back empty;
//   - result_info.page of a later page differs from the page asked for (the server ignores
//     paging; that page is dropped, it repeats an earlier one);
//   - a later page holds the same items as an earlier one (same ids, same order): the
//     server repeats itself while numbering its pages, and the listing fails with an error
//     saying so;
//   - total_pages is present and reached;
//   - otherwise, with total_pages missing: count (or the number of items) is below per_page
//     (the server's per_page if it reports one, else the one asked for), or page*per_page
//     reaches total_count.
func listAll[T any](ctx context.Context, c *Client, r request, perPage int) ([]T, error) {
	var all []T
	seen := seenPages{}
	for page := 1; ; page++ {
		items, info, err := listPage[T](ctx, c, r, page, perPage)
		if err != nil {
			return nil, err
		}
		if page > 1 && info != nil && info.Page != 0 && info.Page != page {
			// The server ignored the page parameter and sent an earlier page again.
			return all, nil
		}
		if !addPage(seen, items) {
			// The server numbers its pages but sends the same items again (total_pages
			// 1e9 would otherwise be followed to maxPages, hours at the real budget).
			return nil, c.fail(r, 0, 0, fmt.Errorf("page %d repeats an earlier page (the server repeats itself%s); stopping this listing", page, announced(info)))
		}
		all = append(all, items...)
		if !morePages(page, perPage, len(items), info) {
			return all, nil
		}
		if page >= maxPages {
			return nil, c.fail(r, 0, 0, fmt.Errorf("more than %d pages announced; giving up", maxPages))
		}
	}
}

// listPage fetches one page of a list.
func listPage[T any](ctx context.Context, c *Client, r request, page, perPage int) ([]T, *ResultInfo, error) {
	q := url.Values{}
	for k, v := range r.query {
		q[k] = append([]string(nil), v...)
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	if perPage > 0 || page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	pr := r
	pr.query = q
	pr.list = true
	var items []T
	info, err := c.do(ctx, pr, &items)
	if err != nil {
		return nil, nil, err
	}
	return items, info, nil
}

// morePages decides whether to ask for page+1 (rules on listAll).
func morePages(page, askedPerPage, got int, info *ResultInfo) bool {
	if info == nil || got == 0 {
		return false
	}
	if info.TotalPages != nil {
		return page < *info.TotalPages
	}
	per := askedPerPage
	if info.PerPage > 0 {
		per = info.PerPage
	}
	count := got
	if info.Count != nil {
		count = *info.Count
	}
	if per <= 0 || count < per {
		return false
	}
	if info.TotalCount != nil {
		return page*per < *info.TotalCount
	}
	return true
}

// seenPages remembers a digest of every page of a listing (the ids of its items, in order),
// to tell a server that repeats a page from one that moves on.
type seenPages map[[sha256.Size]byte]struct{}

// addPage records a page and reports whether it is new: empty, or not the same items in the
// same order as an earlier page. Single items may repeat (a fixture repeats one rule on both
// of its pages, and offset pagination shifts when objects are added during a listing); a
// whole page repeated means the server will never reach the end.
func addPage[T any](s seenPages, items []T) bool {
	if len(items) == 0 {
		return true
	}
	h := sha256.New()
	for i := range items {
		_, _ = h.Write([]byte(itemKey(&items[i]) + "\x00")) // a hash.Hash never fails to write
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if _, ok := s[sum]; ok {
		return false
	}
	s[sum] = struct{}{}
	return true
}

// itemKey is "id:" and the item's string ID field when it has a non-empty one, else its JSON.
func itemKey(item any) string {
	v := reflect.Indirect(reflect.ValueOf(item))
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("ID"); f.IsValid() && f.Kind() == reflect.String && f.String() != "" {
			return "id:" + f.String()
		}
	}
	b, _ := json.Marshal(item) // items were decoded from JSON, so they encode back
	return string(b)
}

// announced describes how many pages the server claims, for the repeated-page error.
func announced(info *ResultInfo) string {
	if info != nil && info.TotalPages != nil {
		return fmt.Sprintf(", announcing %d pages", *info.TotalPages)
	}
	return ""
}
