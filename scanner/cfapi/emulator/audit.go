package emulator

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// AuditLogMode says how GET /accounts/:id/audit_logs answers (Options.AuditLogs).
type AuditLogMode string

// AuditLogMode values.
const (
	// AuditLogServed serves every entry (the default).
	AuditLogServed AuditLogMode = ""
	// AuditLogForbidden answers 403, as for a token without the audit log permission.
	AuditLogForbidden AuditLogMode = "forbidden"
)

// AuditLog is one entry of an account's audit log, in the shape of the API description's
// aaa_audit-logs (openapi_plan_ops.json): action, actor, id, interface, metadata,
// newValue, oldValue, owner, resource, when.
type AuditLog struct {
	Action    AuditAction    `json:"action"`
	Actor     AuditActor     `json:"actor"`
	ID        string         `json:"id"`
	Interface string         `json:"interface"`
	Metadata  map[string]any `json:"metadata"`
	NewValue  string         `json:"newValue,omitempty"`
	OldValue  string         `json:"oldValue,omitempty"`
	Owner     AuditOwner     `json:"owner"`
	Resource  AuditResource  `json:"resource"`
	When      string         `json:"when"`
}

// AuditAction is what was done and whether it succeeded.
type AuditAction struct {
	Result bool   `json:"result"`
	Type   string `json:"type"`
}

// AuditActor is who did it.
type AuditActor struct {
	Email string `json:"email,omitempty"`
	ID    string `json:"id"`
	IP    string `json:"ip,omitempty"`
	Type  string `json:"type"`
}

// AuditOwner is the account the entry belongs to.
type AuditOwner struct {
	ID string `json:"id"`
}

// AuditResource is the object changed.
type AuditResource struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// auditEntry is a stored entry: the account it belongs to and its time, for filtering.
type auditEntry struct {
	account string
	when    time.Time
	log     AuditLog
}

// serveRoute runs the route's handler, with the state lock held, and records a write that
// succeeded in the audit log.
func (s *Server) serveRoute(c *call, r *http.Request, rt *route) *reply {
	rep := rt.h(c)
	s.auditWrite(c, r, rt.pattern, rep.status)
	return rep
}

// auditWrite records a write that succeeded in its account's audit log; called with the
// state lock held, after the handler. Writes outside an account (none today) are not
// recorded.
func (s *Server) auditWrite(c *call, r *http.Request, pattern string, status int) {
	if status < 200 || status > 299 {
		return
	}
	switch c.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return
	}
	account, meta, resID := "", map[string]any{}, ""
	switch {
	case c.zone != nil:
		account = c.zone.zone.Account.ID
		meta["zone_name"] = c.zone.zone.Name
		resID = c.zone.zone.ID
	case c.account != nil:
		account = c.account.account.ID
	}
	if account == "" {
		return
	}
	if id := lastParam(pattern, c.params); id != "" {
		resID = id
	}
	s.auditSeq++
	e := auditEntry{account: account, when: c.now.UTC(), log: AuditLog{
		Action:    AuditAction{Result: true, Type: auditActionType(c.method, pattern)},
		Actor:     AuditActor{Email: s.opts.Email, ID: "emulator-user", IP: remoteIP(r), Type: "user"},
		ID:        s.auditID(),
		Interface: "API",
		Metadata:  meta,
		Owner:     AuditOwner{ID: account},
		Resource:  AuditResource{ID: resID, Type: auditResourceType(pattern)},
		When:      c.now.UTC().Format(time.RFC3339),
	}}
	s.audit = append(s.audit, e)
}

// auditID is a UUID-shaped id, deterministic for a given Options.Rand and entry number.
func (s *Server) auditID() string {
	h := fmt.Sprintf("%016x%016x", uint64(s.opts.Rand)*0x9e3779b97f4a7c15, s.auditSeq)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func lastParam(pattern string, params map[string]string) string {
	segs := splitPath(pattern)
	for i := len(segs) - 1; i >= 0; i-- {
		if name, ok := strings.CutPrefix(segs[i], ":"); ok {
			if name == "zone_id" || name == "account_id" {
				return ""
			}
			return params[name]
		}
	}
	return ""
}

// auditResourceType names the object from the route: its literal segments after the scope,
// e.g. "firewall_rules", "settings", "dns_records".
func auditResourceType(pattern string) string {
	var lits []string
	for i, seg := range splitPath(pattern) {
		if i > 0 && !strings.HasPrefix(seg, ":") {
			lits = append(lits, seg)
		}
	}
	if len(lits) == 0 {
		return "zone"
	}
	return strings.Join(lits, "_")
}

func auditActionType(method, pattern string) string {
	switch {
	case strings.Contains(pattern, "/settings"):
		return "change_setting"
	case method == http.MethodPost:
		return "add"
	case method == http.MethodDelete:
		return "delete"
	}
	return "update"
}

func remoteIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// auditPageLimits: per_page defaults to 100, at most 1,000 (the API description).
var auditPageLimits = pageLimits{100, 1000}

func (s *Server) auditRoutes() {
	s.handle(http.MethodGet, "/accounts/:account_id/audit_logs", s.auditLogs)
}

// auditLogs answers GET /accounts/:id/audit_logs with the query parameters of the API
// description: since and before (a date or an RFC 3339 time; since keeps newer entries,
// before older ones), direction (desc by default, or asc), per_page, page, and the
// filters id, action.type, actor.email and zone.name. The answer carries no result_info,
// as the description's aaa_audit_logs_response_collection has none: a client pages until
// a page comes back shorter than per_page.
func (s *Server) auditLogs(c *call) *reply {
	if s.opts.AuditLogs == AuditLogForbidden {
		return fail(http.StatusForbidden, CodeAuth, "Authentication error: the token may not read this account's audit logs")
	}
	since, bad := auditTime(c, "since")
	if bad != nil {
		return bad
	}
	before, bad := auditTime(c, "before")
	if bad != nil {
		return bad
	}
	dir := c.query.Get("direction")
	if dir != "" && dir != "asc" && dir != "desc" {
		return fail(http.StatusBadRequest, CodeBadQuery, "direction must be asc or desc, got %q", dir)
	}
	var out []AuditLog
	for _, e := range s.audit {
		if e.account != c.account.account.ID || !since.IsZero() && !e.when.After(since) ||
			!before.IsZero() && !e.when.Before(before) || !auditMatches(c, e.log) {
			continue
		}
		out = append(out, e.log)
	}
	if dir != "asc" { // entries are stored oldest first
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	page, _, bad := paginate(c, out, auditPageLimits)
	if bad != nil {
		return bad
	}
	return ok(page)
}

func auditMatches(c *call, l AuditLog) bool {
	if v := c.query.Get("id"); v != "" && l.ID != v {
		return false
	}
	if v := c.query.Get("action.type"); v != "" && l.Action.Type != v {
		return false
	}
	if v := c.query.Get("actor.email"); v != "" && !strings.EqualFold(l.Actor.Email, v) {
		return false
	}
	if v := c.query.Get("zone.name"); v != "" && l.Metadata["zone_name"] != v {
		return false
	}
	return true
}

// auditTime reads since or before: a date (2019-04-30) or an RFC 3339 time.
func auditTime(c *call, name string) (time.Time, *reply) {
	v := c.query.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fail(http.StatusBadRequest, CodeBadQuery, "%s must be a date (2019-04-30) or an RFC 3339 time, got %q", name, strconv.Quote(v))
}
