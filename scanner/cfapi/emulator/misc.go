package emulator

import (
	"encoding/json"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// setStamp records a timestamp member in an object's Extra.
func setStamp(extra *inventory.Extra, key, ts string) {
	if *extra == nil {
		*extra = inventory.Extra{}
	}
	b, _ := json.Marshal(ts)
	(*extra)[key] = b
}

func required(what, v string) *APIError {
	if strings.TrimSpace(v) == "" {
		return &APIError{Code: CodeInvalid, Message: what + " is required"}
	}
	return nil
}

func objectID(o *object) string {
	id, _ := (*o)["id"].(string)
	return id
}

func setObjectID(o *object, id string) {
	if *o == nil {
		*o = object{}
	}
	(*o)["id"] = id
}

// orgRoles are the roles an organization lists (fixed, like the account roles API).
var orgRoles = []object{
	{"id": "05784afa30c1afe1440e79d9351c7430", "name": "Administrator", "description": "Can access the full account, except for membership management and billing.", "permissions": object{}},
	{"id": "33666b9c79b9a5273fc7344ff42f953d", "name": "Super Administrator - All Privileges", "description": "Can edit any Cloudflare setting, make purchases, update billing, and manage memberships.", "permissions": object{}},
	{"id": "e58cefd75d7adae0b761796c28815e5c", "name": "Billing", "description": "Can view and edit billing profile, subscriptions and invoices.", "permissions": object{}},
}

// otherRoutes registers health checks, load balancer pools and the other deprecated
// endpoints that only need plausible answers.
func (s *Server) otherRoutes() {
	health := resource[inventory.HealthCheck]{
		kind: "health check", param: "healthcheck_id", lim: pageOther,
		items: func(c *call) *[]*inventory.HealthCheck { return &c.zone.health },
		getID: func(h *inventory.HealthCheck) string { return h.ID },
		setID: func(h *inventory.HealthCheck, id string) { h.ID = id },
		check: func(_ *call, h *inventory.HealthCheck) *APIError {
			if e := required("name", h.Name); e != nil {
				return e
			}
			return required("address", h.Address)
		},
		created: func(c *call, h *inventory.HealthCheck) {
			setStamp(&h.Extra, "created_on", c.stamp())
			setStamp(&h.Extra, "modified_on", c.stamp())
		},
		view: renderHealthCheck,
	}
	s.handle("GET", "/zones/:zone_id/healthchecks", health.list)
	s.handle("POST", "/zones/:zone_id/healthchecks", health.create)
	s.handle("GET", "/zones/:zone_id/healthchecks/:healthcheck_id", health.get)
	s.handle("PUT", "/zones/:zone_id/healthchecks/:healthcheck_id", health.replace)
	s.handle("PATCH", "/zones/:zone_id/healthchecks/:healthcheck_id", health.patch)
	s.handle("DELETE", "/zones/:zone_id/healthchecks/:healthcheck_id", health.remove)

	pools := resource[inventory.LoadBalancerPool]{
		kind: "load balancer pool", param: "pool_id", lim: pageOther,
		items: func(c *call) *[]*inventory.LoadBalancerPool { return &c.account.pools },
		getID: func(p *inventory.LoadBalancerPool) string { return p.ID },
		setID: func(p *inventory.LoadBalancerPool, id string) { p.ID = id },
		check: func(_ *call, p *inventory.LoadBalancerPool) *APIError { return required("name", p.Name) },
		created: func(c *call, p *inventory.LoadBalancerPool) {
			setStamp(&p.Extra, "created_on", c.stamp())
			setStamp(&p.Extra, "modified_on", c.stamp())
		},
	}
	s.handle("GET", "/accounts/:account_id/load_balancers/pools", pools.list)
	s.handle("POST", "/accounts/:account_id/load_balancers/pools", pools.create)
	s.handle("GET", "/accounts/:account_id/load_balancers/pools/:pool_id", pools.get)
	s.handle("PUT", "/accounts/:account_id/load_balancers/pools/:pool_id", pools.replace)
	s.handle("PATCH", "/accounts/:account_id/load_balancers/pools/:pool_id", pools.patch)
	s.handle("DELETE", "/accounts/:account_id/load_balancers/pools/:pool_id", pools.remove)
	s.handle("GET", "/user/load_balancers/pools", func(c *call) *reply {
		out := []inventory.LoadBalancerPool{}
		for _, a := range c.st.accounts {
			for _, p := range a.pools {
				out = append(out, deepCopy(*p))
			}
		}
		return listReply(c, out, pageOther)
	})
	s.legacyAccountRoutes()
}

// legacyAccountRoutes registers the legacy tunnels and Access bookmarks.
func (s *Server) legacyAccountRoutes() {
	tunnels := resource[inventory.Tunnel]{
		kind: "tunnel", param: "tunnel_id", lim: pageOther,
		items: func(c *call) *[]*inventory.Tunnel { return &c.account.tunnels },
		getID: func(t *inventory.Tunnel) string { return t.ID },
		setID: func(t *inventory.Tunnel, id string) { t.ID = id },
		check: func(_ *call, t *inventory.Tunnel) *APIError { return required("name", t.Name) },
		view:  func(c *call, t inventory.Tunnel) inventory.Tunnel { return c.legacyTunnel(t) },
		created: func(c *call, t *inventory.Tunnel) {
			// The secret is write-only: never stored, never echoed.
			delete(t.Extra, "tunnel_secret")
			t.CreatedAt = c.stamp()
			if t.Extra == nil {
				t.Extra = inventory.Extra{}
			}
			t.Extra["connections"] = json.RawMessage("[]")
		},
	}
	s.handle("GET", "/accounts/:account_id/tunnels", tunnels.list)
	s.handle("POST", "/accounts/:account_id/tunnels", tunnels.create)
	s.handle("GET", "/accounts/:account_id/tunnels/:tunnel_id", tunnels.get)
	s.handle("DELETE", "/accounts/:account_id/tunnels/:tunnel_id", tunnels.remove)
	s.handle("DELETE", "/accounts/:account_id/tunnels/:tunnel_id/connections", func(c *call) *reply {
		_, t := tunnels.find(c, c.params["tunnel_id"])
		if t == nil {
			return notFound("tunnel", c.params["tunnel_id"])
		}
		// Legacy tunnels hold no live connections here: cleaning them up is a no-op.
		return ok(object{})
	})

	bookmarks := resource[inventory.AccessBookmark]{
		kind: "access bookmark", param: "bookmark_id", lim: pageOther,
		items: func(c *call) *[]*inventory.AccessBookmark { return &c.account.bookmarks },
		getID: func(b *inventory.AccessBookmark) string { return b.ID },
		setID: func(b *inventory.AccessBookmark, id string) { b.ID = id },
		check: func(_ *call, b *inventory.AccessBookmark) *APIError {
			if e := required("name", b.Name); e != nil {
				return e
			}
			return required("domain", b.Domain)
		},
		created: func(c *call, b *inventory.AccessBookmark) {
			setStamp(&b.Extra, "created_at", c.stamp())
			setStamp(&b.Extra, "updated_at", c.stamp())
		},
	}
	s.handle("GET", "/accounts/:account_id/access/bookmarks", bookmarks.list)
	s.handle("GET", "/accounts/:account_id/access/bookmarks/:bookmark_id", bookmarks.get)
	s.handle("POST", "/accounts/:account_id/access/bookmarks/:bookmark_id", bookmarks.createAt)
	s.handle("PUT", "/accounts/:account_id/access/bookmarks/:bookmark_id", bookmarks.replace)
	s.handle("DELETE", "/accounts/:account_id/access/bookmarks/:bookmark_id", bookmarks.remove)
	s.billingAndAnalyticsRoutes()
}

// billingAndAnalyticsRoutes registers billing, image uploads, the analytics dashboard, page
// shield and the organizations API.
func (s *Server) billingAndAnalyticsRoutes() {
	billing := func(id string) object {
		return object{"id": id, "first_name": "", "last_name": "", "address": "", "address2": "", "company": "", "city": "", "state": "", "zipcode": "", "country": "", "telephone": "", "card_number": "", "card_expiry_year": 0, "card_expiry_month": 0, "vat": "", "edited_on": "", "created_on": ""}
	}
	s.handle("GET", "/accounts/:account_id/billing/profile", func(c *call) *reply { return ok(billing(c.account.account.ID)) })
	s.handle("GET", "/user/billing/profile", func(c *call) *reply { return ok(billing(c.st.fixedID("user-billing"))) })
	s.handle("GET", "/user/billing/history", func(c *call) *reply { return listReply(c, []object{}, pageOther) })

	upload := func(c *call) *reply {
		id := c.st.newID("image")
		return ok(object{"id": id, "uploadURL": "https://upload.imagedelivery.net/" + id})
	}
	s.handle("POST", "/accounts/:account_id/images/v1/direct_upload", upload)
	s.handle("POST", "/accounts/:account_id/images/v2/direct_upload", upload)

	s.handle("GET", "/zones/:zone_id/analytics/dashboard", func(c *call) *reply {
		since, until := c.query.Get("since"), c.query.Get("until")
		if since == "" {
			since = "-10080"
		}
		if until == "" {
			until = "0"
		}
		zero := object{"all": 0, "cached": 0, "uncached": 0}
		return ok(object{
			"totals": object{"since": since, "until": until, "requests": zero, "bandwidth": zero,
				"threats": object{"all": 0}, "pageviews": object{"all": 0}, "uniques": object{"all": 0}},
			"timeseries": []object{},
		})
	})
	s.handle("GET", "/zones/:zone_id/analytics/colos", func(c *call) *reply { return ok([]object{}) })

	s.pageShieldRoutes()
	s.orgRoutes()
}

// pageShieldRoutes serves page shield under its old path segment (script_monitor) and its
// new one (page_shield): one setting per zone, and empty script and connection lists.
func (s *Server) pageShieldRoutes() {
	for _, seg := range []string{"script_monitor", "page_shield"} {
		base := "/zones/:zone_id/" + seg
		s.handle("GET", base, func(c *call) *reply { return ok(c.zone.pageShield) })
		s.handle("PUT", base, func(c *call) *reply {
			var in struct {
				Enabled                        *bool `json:"enabled"`
				UseCloudflareReportingEndpoint *bool `json:"use_cloudflare_reporting_endpoint"`
				UseConnectionURLPath           *bool `json:"use_connection_url_path"`
			}
			if rep := c.decode(&in); rep != nil {
				return rep
			}
			ps := &c.zone.pageShield
			if in.Enabled != nil {
				ps.Enabled = *in.Enabled
			}
			if in.UseCloudflareReportingEndpoint != nil {
				ps.UseCloudflareReportingEndpoint = *in.UseCloudflareReportingEndpoint
			}
			if in.UseConnectionURLPath != nil {
				ps.UseConnectionURLPath = *in.UseConnectionURLPath
			}
			ps.UpdatedAt = c.stamp()
			return ok(*ps)
		})
		for _, list := range []string{"scripts", "connections"} {
			kind := strings.TrimSuffix(list, "s")
			s.handle("GET", base+"/"+list, func(c *call) *reply { return listReply(c, []object{}, pageOther) })
			s.handle("GET", base+"/"+list+"/:item_id", func(c *call) *reply { return notFound(kind, c.params["item_id"]) })
		}
	}
}

// orgRoutes registers the organizations API, answered from the accounts that replaced it.
func (s *Server) orgRoutes() {
	org := func(a *accountState) object {
		return object{"id": a.account.ID, "name": a.account.Name, "status": "active", "permissions": []string{}, "roles": []string{}}
	}
	s.handle("GET", "/organizations/:org_id", func(c *call) *reply { return ok(org(c.account)) })
	s.handle("PATCH", "/organizations/:org_id", func(c *call) *reply {
		var in struct {
			Name *string `json:"name"`
		}
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if in.Name != nil {
			if e := required("name", *in.Name); e != nil {
				return invalid("%s", e.Message)
			}
			c.account.account.Name = *in.Name
		}
		return ok(org(c.account))
	})
	invites := resource[object]{
		kind: "invite", param: "invite_id", lim: pageOther,
		items: func(c *call) *[]*object { return &c.account.invites },
		getID: objectID, setID: setObjectID,
		check: func(_ *call, o *object) *APIError {
			email, _ := (*o)["invited_member_email"].(string)
			return required("invited_member_email", email)
		},
		created: func(c *call, o *object) {
			(*o)["status"] = "pending"
			(*o)["invited_on"] = c.stamp()
			(*o)["organization_id"] = c.account.account.ID
		},
	}
	s.handle("GET", "/organizations/:org_id/invites", invites.list)
	s.handle("POST", "/organizations/:org_id/invites", invites.create)
	s.handle("GET", "/organizations/:org_id/invites/:invite_id", invites.get)
	s.handle("PATCH", "/organizations/:org_id/invites/:invite_id", invites.patch)
	s.handle("DELETE", "/organizations/:org_id/invites/:invite_id", invites.remove)

	// Members are not modelled: the list is empty and every member id is unknown.
	s.handle("GET", "/organizations/:org_id/members", func(c *call) *reply { return listReply(c, []object{}, pageOther) })
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		s.handle(m, "/organizations/:org_id/members/:member_id", func(c *call) *reply { return notFound("member", c.params["member_id"]) })
	}
	s.handle("GET", "/organizations/:org_id/roles", func(c *call) *reply { return listReply(c, orgRoles, pageOther) })
	s.handle("GET", "/organizations/:org_id/roles/:role_id", func(c *call) *reply {
		for _, r := range orgRoles {
			if r["id"] == c.params["role_id"] {
				return ok(r)
			}
		}
		return notFound("role", c.params["role_id"])
	})
	s.handle("GET", "/organizations/:org_id/audit_logs", func(c *call) *reply { return listReply(c, []object{}, pageOther) })

	relays := resource[object]{
		kind: "relay", param: "relay_id", lim: pageOther,
		items: func(c *call) *[]*object { return &c.account.relays },
		getID: objectID, setID: setObjectID,
		check: func(_ *call, o *object) *APIError {
			name, _ := (*o)["name"].(string)
			return required("name", name)
		},
		created: func(c *call, o *object) { (*o)["created_on"] = c.stamp() },
	}
	s.handle("GET", "/organizations/:org_id/relays", relays.list)
	s.handle("POST", "/organizations/:org_id/relays", relays.create)
	s.handle("GET", "/organizations/:org_id/relays/:relay_id", relays.get)
	s.handle("PATCH", "/organizations/:org_id/relays/:relay_id", relays.patch)
	s.handle("DELETE", "/organizations/:org_id/relays/:relay_id", relays.remove)
	s.handle("GET", "/organizations/:org_id/relays/:relay_id/zones", func(c *call) *reply {
		if _, o := relays.find(c, c.params["relay_id"]); o == nil {
			return notFound("relay", c.params["relay_id"])
		}
		return listReply(c, []object{}, pageOther)
	})
}
