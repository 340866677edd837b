package cfapi

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// perPageAudit is the largest page the audit log endpoint takes (its description: 1 to
// 1,000, default 100): an incremental rescan reads few pages.
const perPageAudit = 1000

// AuditLogRetention is how far back the audit log reaches: Cloudflare keeps account audit
// logs for 18 months. A snapshot older than that cannot be compared through the log.
const AuditLogRetention = 18 * 30 * 24 * time.Hour

// AuditLog is one entry of an account's audit log (GET /accounts/:id/audit_logs, the
// description's aaa_audit-logs), with the members that say what changed and where.
type AuditLog struct {
	ID     string `json:"id"`
	Action struct {
		Type   string `json:"type"`
		Result bool   `json:"result"`
	} `json:"action"`
	Resource struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"resource"`
	// Metadata varies by action; zone changes carry zone_name (and some zone_id).
	Metadata map[string]any `json:"metadata"`
	When     string         `json:"when"`
}

// ZoneName is the zone the entry names in its metadata, or "".
func (l *AuditLog) ZoneName() string { return metadataString(l.Metadata, "zone_name") }

// ZoneID is the zone id the entry names (metadata zone_id, or the resource when it is a
// zone), or "".
func (l *AuditLog) ZoneID() string {
	if id := metadataString(l.Metadata, "zone_id"); id != "" {
		return id
	}
	if l.Resource.Type == "zone" {
		return l.Resource.ID
	}
	return ""
}

func metadataString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// ListAuditLogs returns every entry of an account's audit log newer than since, oldest
// first (direction=asc, 1,000 a page). The description gives the answer no result_info,
// so pages are followed until one comes back short; a result_info, when sent, is obeyed.
func (c *Client) ListAuditLogs(ctx context.Context, accountID string, since time.Time) ([]AuditLog, error) {
	r, err := get(false, "accounts", accountID, "audit_logs")
	if err != nil {
		return nil, err
	}
	r.query = url.Values{"since": {since.UTC().Format(time.RFC3339)}, "direction": {"asc"}}
	var all []AuditLog
	seen := seenPages{}
	for page := 1; ; page++ {
		items, info, err := listPage[AuditLog](ctx, c, r, page, perPageAudit)
		if err != nil {
			return nil, err
		}
		if !addPage(seen, items) {
			return nil, c.fail(r, 0, 0, fmt.Errorf("page %d repeats an earlier page; stopping this listing", page))
		}
		all = append(all, items...)
		more := len(items) >= perPageAudit
		if info != nil {
			more = morePages(page, perPageAudit, len(items), info)
		}
		if !more {
			return all, nil
		}
		if page >= maxPages {
			return nil, c.fail(r, 0, 0, fmt.Errorf("more than %s pages; giving up", strconv.Itoa(maxPages)))
		}
	}
}
