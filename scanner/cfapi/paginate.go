package cfapi

import (
	"context"
	"fmt"
	"net/url"
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
//   - total_pages is present and reached;
//   - otherwise, with total_pages missing: count (or the number of items) is below per_page
//     (the server's per_page if it reports one, else the one asked for), or page*per_page
//     reaches total_count.
func listAll[T any](ctx context.Context, c *Client, r request, perPage int) ([]T, error) {
	var all []T
	for page := 1; ; page++ {
		items, info, err := listPage[T](ctx, c, r, page, perPage)
		if err != nil {
			return nil, err
		}
		if page > 1 && info != nil && info.Page != 0 && info.Page != page {
			// The server ignored the page parameter and sent an earlier page again.
			return all, nil
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
