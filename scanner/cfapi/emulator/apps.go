package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// accessAppTypes are the Access application types of the API's description.
var accessAppTypes = []string{"app_launcher", "biso", "bookmark", "dash_sso", "infrastructure", "saas", "self_hosted", "ssh", "vnc", "warp"}

// newUUID is a deterministic version 4 UUID, the id form of Access applications,
// notification policies and tunnels.
func (st *state) newUUID(kind string) string { return uuidOf(st.newID(kind)) }

// uuidOf shapes 32 hex characters as a version 4 UUID; other ids are returned as they are.
func uuidOf(hex string) string {
	if len(hex) != 32 {
		return hex
	}
	b := []byte(strings.ToLower(hex))
	b[12] = '4'
	b[16] = "89ab"[strings.IndexByte("0123456789abcdef", b[16])%4]
	return fmt.Sprintf("%s-%s-%s-%s-%s", b[0:8], b[8:12], b[12:16], b[16:20], b[20:32])
}

// str reads a string member of a free-form object.
func str(o *object, key string) string {
	v, _ := (*o)[key].(string)
	return v
}

// accessApps is the Access applications collection of an account.
func accessApps() resource[object] {
	return resource[object]{
		kind: "access application", param: "app_id", lim: pageOther,
		items: func(c *call) *[]*object { return &c.account.apps },
		getID: objectID, setID: setObjectID,
		check: func(_ *call, o *object) *APIError {
			typ := str(o, "type")
			if !contains(accessAppTypes, typ) {
				return &APIError{Code: CodeInvalid, Message: fmt.Sprintf("type must be one of %s", strings.Join(accessAppTypes, ", "))}
			}
			if typ == "bookmark" || typ == "self_hosted" {
				if e := required("domain", str(o, "domain")); e != nil {
					return e
				}
			}
			return required("name", str(o, "name"))
		},
		created: func(c *call, o *object) {
			(*o)["aud"] = c.st.fixedID("aud/"+objectID(o)) + c.st.fixedID("aud2/"+objectID(o))
			(*o)["created_at"] = c.stamp()
			(*o)["updated_at"] = c.stamp()
			if _, set := (*o)["app_launcher_visible"]; !set {
				(*o)["app_launcher_visible"] = true
			}
		},
	}
}

// notificationPolicies is the notification policies collection of an account.
func notificationPolicies() resource[object] {
	return resource[object]{
		kind: "notification policy", param: "policy_id", lim: pageOther,
		items: func(c *call) *[]*object { return &c.account.policies },
		getID: objectID, setID: setObjectID,
		check: func(_ *call, o *object) *APIError {
			if e := required("name", str(o, "name")); e != nil {
				return e
			}
			if e := required("alert_type", str(o, "alert_type")); e != nil {
				return e
			}
			if m, isMap := (*o)["mechanisms"].(map[string]any); !isMap || len(m) == 0 {
				return &APIError{Code: CodeInvalid, Message: "mechanisms is required: {\"email\": [{\"id\": ADDRESS}], ...}"}
			}
			return nil
		},
		created: func(c *call, o *object) {
			(*o)["created"] = c.stamp()
			(*o)["modified"] = c.stamp()
			if _, set := (*o)["enabled"]; !set {
				(*o)["enabled"] = true
			}
		},
	}
}

// accessRoutes registers Access applications, notification policies and the tunnel API's
// reads, the replacements a migration plan writes to.
func (s *Server) accessRoutes() {
	apps := accessApps()
	const appsPath = "/accounts/:account_id/access/apps"
	s.handle("GET", appsPath, apps.list)
	s.handle("POST", appsPath, func(c *call) *reply {
		x, rep := apps.decodeObject(c)
		if rep != nil {
			return rep
		}
		return withStatus(apps.store(c, x, c.st.newUUID("access_app")), http.StatusCreated)
	})
	s.handle("GET", appsPath+"/:app_id", apps.get)
	s.handle("PUT", appsPath+"/:app_id", func(c *call) *reply {
		_, old := apps.find(c, c.params["app_id"])
		rep := apps.replace(c)
		if old != nil && rep.status == http.StatusOK {
			// The service keeps what it set at creation.
			_, cur := apps.find(c, c.params["app_id"])
			(*cur)["aud"], (*cur)["created_at"], (*cur)["updated_at"] = (*old)["aud"], (*old)["created_at"], c.stamp()
			rep.result = deepCopy(*cur)
		}
		return rep
	})
	s.handle("DELETE", appsPath+"/:app_id", func(c *call) *reply { return withStatus(apps.remove(c), http.StatusAccepted) })

	policies := notificationPolicies()
	const policiesPath = "/accounts/:account_id/alerting/v3/policies"
	s.handle("GET", policiesPath, policies.list)
	s.handle("POST", policiesPath, func(c *call) *reply {
		x, rep := policies.decodeObject(c)
		if rep != nil {
			return rep
		}
		return idOnly(policies.store(c, x, c.st.newUUID("notification_policy")))
	})
	s.handle("GET", policiesPath+"/:policy_id", policies.get)
	s.handle("PUT", policiesPath+"/:policy_id", func(c *call) *reply {
		_, old := policies.find(c, c.params["policy_id"])
		rep := policies.replace(c)
		if old != nil && rep.status == http.StatusOK {
			_, cur := policies.find(c, c.params["policy_id"])
			(*cur)["created"], (*cur)["modified"] = (*old)["created"], c.stamp()
		}
		return idOnly(rep)
	})
	s.handle("DELETE", policiesPath+"/:policy_id", func(c *call) *reply {
		rep := policies.remove(c)
		if rep.status == http.StatusOK {
			rep.result = nil // the API answers a bare envelope
		}
		return rep
	})

	s.handle("GET", "/accounts/:account_id/cfd_tunnel", (*call).listCfdTunnels)
	s.handle("GET", "/accounts/:account_id/cfd_tunnel/:tunnel_id", func(c *call) *reply {
		for _, t := range c.account.tunnels {
			if t.ID == c.params["tunnel_id"] {
				return ok(c.cfdTunnel(t))
			}
		}
		return notFound("tunnel", c.params["tunnel_id"])
	})
}

// withStatus sets the status of a successful reply (201 for a creation, 202 for a deletion
// the API accepts for later).
func withStatus(rep *reply, status int) *reply {
	if rep.status == http.StatusOK {
		rep.status = status
	}
	return rep
}

// idOnly cuts a successful reply's result down to {"id": ...}, as the notification
// policies API answers writes.
func idOnly(rep *reply) *reply {
	if o, isObj := rep.result.(object); isObj && rep.status == http.StatusOK {
		rep.result = object{"id": o["id"]}
	}
	return rep
}

// listCfdTunnels is GET /accounts/:account_id/cfd_tunnel: the account's tunnels (the ones the
// legacy /tunnels lists) in the tunnel API's shape, with its is_deleted, name and uuid filters.
func (c *call) listCfdTunnels() *reply {
	var out []*inventory.Tunnel
	q := c.query
	for _, t := range c.account.tunnels {
		if v := q.Get("is_deleted"); v != "" && (v == "true") != (t.DeletedAt != "") {
			continue
		}
		if v := q.Get("name"); v != "" && t.Name != v {
			continue
		}
		if v := q.Get("uuid"); v != "" && t.ID != v {
			continue
		}
		out = append(out, t)
	}
	return renderPage(c, out, pageOther, c.cfdTunnel)
}

// cfdTunnel renders a tunnel in the tunnel API's shape: its connections (none unless the
// seed says otherwise), the account tag, and a status that follows from the connections.
func (c *call) cfdTunnel(t *inventory.Tunnel) object {
	lt := c.legacyTunnel(*t)
	conns := lt.Extra["connections"]
	var list []any
	status := "inactive"
	if json.Unmarshal(conns, &list) == nil && len(list) > 0 {
		status = "healthy"
	}
	out := object{
		"id": t.ID, "name": t.Name, "account_tag": c.account.account.ID, "created_at": lt.CreatedAt,
		"connections": conns, "tun_type": "cfd_tunnel", "status": status, "remote_config": false, "metadata": object{},
	}
	// Timestamps the tunnel does not have are left out: the description allows no null.
	if t.DeletedAt != "" {
		out["deleted_at"] = t.DeletedAt
	}
	return out
}

// legacyTunnel is a tunnel as the legacy /tunnels API answers it (see renderTunnel).
func (c *call) legacyTunnel(t inventory.Tunnel) inventory.Tunnel { return renderTunnel(t, c.asOf) }

// renderTunnel is a tunnel with its connections (an empty list when the seed has none) and a
// creation time (the emulator's date at midnight when the seed has none), both required by
// the API's description.
func renderTunnel(t inventory.Tunnel, asOf time.Time) inventory.Tunnel {
	out := t
	out.Extra = inventory.Extra{}
	for k, v := range t.Extra {
		out.Extra[k] = v
	}
	var conns []any
	if json.Unmarshal(out.Extra["connections"], &conns) != nil || conns == nil {
		out.Extra["connections"] = json.RawMessage("[]")
	}
	if out.CreatedAt == "" {
		out.CreatedAt = asOf.UTC().Format("2006-01-02T15:04:05Z")
	}
	return out
}
