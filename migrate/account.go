package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
)

// accountTranslator plans the account-scoped objects: nameserver defaults, load balancer
// pools with notification_email, legacy tunnels, Access bookmarks.
type accountTranslator struct{}

func (accountTranslator) translate(b *builder) {
	accountNameservers(b, b.a)
	pools(b, b.a)
	tunnels(b, b.a)
	bookmarks(b, b.a)
}

// accountNameservers plans settings.default_nameservers / use_account_custom_ns_by_default ->
// PATCH /accounts/:id/dns_settings {"zone_defaults": {"nameservers": {"type": T}}}.
// default_nameservers carries over unchanged; use_account_custom_ns_by_default true means
// custom.account (derived) and wins. Old and new reflect each other, so the PATCH is planned
// only when the account DNS settings do not already report the type.
func accountNameservers(b *builder, a *inventory.AccountInventory) {
	fps := b.findings(vocab.AccountNameserverSettings, vocab.KindAccount, a.Account.ID)
	st := a.Account.Settings
	if len(fps) == 0 || st == nil {
		return
	}
	target, derived := nameserverTarget(st)
	stop := Step{
		ID: string(KindAccountSettingsStop), Kind: KindAccountSettingsStop, Manual: true,
		Resolves: fps, Risk: RiskLow, Derived: derived,
		Title:  "Stop using settings.default_nameservers and use_account_custom_ns_by_default; use zone_defaults.nameservers.type of /accounts/:account_id/dns_settings",
		Reason: "The account settings fields are deprecated; old and new reflect each other, so what must move is the callers.",
	}
	if target == "" {
		stop.Title = fmt.Sprintf("Set zone_defaults.nameservers.type by hand: default_nameservers %q has no known mapping", st.DefaultNameservers)
		stop.Risk = RiskMedium
		b.add(phaseManual, stop)
		return
	}
	b.accountDNS = &Settings{NameserversType: target}
	var cur string
	if a.DNSSettings != nil && a.DNSSettings.ZoneDefaults.Nameservers != nil {
		cur = a.DNSSettings.ZoneDefaults.Nameservers.Type
	}
	why := nameserverWhy(st)
	patch := accountNameserversBody(target)
	switch {
	case cur != "" && inventory.NameserverType(cur) == target:
		stop.Title = fmt.Sprintf("No change: zone_defaults.nameservers.type is already %q; stop using the account settings fields", cur)
		stop.Note = why + "."
	case cur != "":
		b.accountDNS = &Settings{NameserversType: cur}
		stop.Title = fmt.Sprintf("Decide zone_defaults.nameservers.type: the account settings say %q, the DNS settings %q", target, cur)
		stop.Reason = why + fmt.Sprintf(", but the account DNS settings report %q; they should reflect each other, so one read is stale. Check which is current.", cur)
		stop.Method, stop.Path, stop.Body = "PATCH", accountPath(a.Account.ID, "dns_settings"), patch
		stop.Risk = RiskHigh
	default:
		b.add(phaseCreate, Step{
			ID: string(KindAccountDNSSettingsPatch), Kind: KindAccountDNSSettingsPatch, Change: ChangeUpdate,
			Method: "PATCH", Path: accountPath(a.Account.ID, "dns_settings"), Body: patch,
			Resolves: fps, Risk: RiskLow, Derived: derived,
			Title:  fmt.Sprintf("Set zone_defaults.nameservers.type = %q in the account DNS settings", target),
			Reason: "The account DNS settings were not read: " + why + ".",
		})
		stop.DependsOn = []string{string(KindAccountDNSSettingsPatch)}
	}
	b.add(phaseManual, stop)
}

// usesCustomNS tells whether the account defaults to its custom nameservers.
func usesCustomNS(st *inventory.AccountSettings) bool {
	return st.UseAccountCustomNSByDefault != nil && *st.UseAccountCustomNSByDefault
}

// nameserverTarget is the zone_defaults.nameservers.type the old fields mean ("" when
// default_nameservers has no known mapping), and whether the mapping is derived.
func nameserverTarget(st *inventory.AccountSettings) (string, bool) {
	if usesCustomNS(st) {
		return "custom.account", true
	}
	return inventory.NameserverType(st.DefaultNameservers), false
}

// nameserverWhy says how the old fields map to the type.
func nameserverWhy(st *inventory.AccountSettings) string {
	if !usesCustomNS(st) {
		return fmt.Sprintf("default_nameservers %q carries over unchanged", st.DefaultNameservers)
	}
	why := "use_account_custom_ns_by_default = true means custom.account (derived)"
	if st.DefaultNameservers != "" && inventory.NameserverType(st.DefaultNameservers) != "custom.account" {
		why += fmt.Sprintf("; it wins over default_nameservers %q", st.DefaultNameservers)
	}
	return why
}

// accountNameserversBody is the account DNS settings PATCH that sets the nameserver type.
func accountNameserversBody(target string) json.RawMessage {
	return mustJSON(map[string]any{"zone_defaults": map[string]any{"nameservers": map[string]string{"type": target}}})
}

// poolPolicyBody is the notification policy that mails a pool's notification_email
// addresses about the pool (derived: see pools).
func poolPolicyBody(p inventory.LoadBalancerPool) json.RawMessage {
	return notificationPolicy("Load balancer pool "+p.Name, "load_balancing_health_alert", inventory.EmailList(p.NotificationEmail), map[string][]string{"pool_id": {p.ID}})
}

// clearEmailBody is the pool PATCH that clears notification_email.
var clearEmailBody = mustJSON(map[string]string{"notification_email": ""})

// bookmarkAppBody is the Access application of type bookmark that replaces a bookmark.
func bookmarkAppBody(bm inventory.AccessBookmark) json.RawMessage {
	return mustJSON(map[string]any{"type": "bookmark", "name": bm.Name, "domain": bm.Domain, "app_launcher_visible": true})
}

// notificationPolicy is the policy body for a set of addresses (derived alert types).
func notificationPolicy(name, alertType string, emails []string, filters map[string][]string) json.RawMessage {
	mech := make([]map[string]string, len(emails))
	for i, e := range emails {
		mech[i] = map[string]string{"id": e}
	}
	body := map[string]any{
		"name": name, "alert_type": alertType, "enabled": true,
		"mechanisms": map[string]any{"email": mech},
	}
	if len(filters) > 0 {
		body["filters"] = filters
	}
	return mustJSON(body)
}

// pools plans notification_email on load balancer pools -> notification policies: create a
// policy that mails the same addresses about the pool, then clear the field (the real API's
// home of the deprecated field; health checks have none). Derived: the alert type
// load_balancing_health_alert filtered on the pool is sunset's choice. A policy that does
// the same exists already (written by someone else, found by what it does): it is checked
// instead of created.
func pools(b *builder, a *inventory.AccountInventory) {
	same := objectIndex(KindNotificationPolicyNew, len(a.NotificationPolicies), func(i int) any { return a.NotificationPolicies[i] })
	for _, p := range a.LoadBalancerPools {
		fps := b.findings(vocab.NotificationEmail, vocab.KindLoadBalancerPool, p.ID)
		if len(fps) == 0 {
			continue
		}
		emails := inventory.EmailList(p.NotificationEmail)
		create := Step{
			ID: "notification-policy.create:" + p.ID, Kind: KindNotificationPolicyNew, Change: ChangeCreate, Derived: true,
			Method: "POST", Path: accountPath(a.Account.ID, "alerting", "v3", "policies"),
			Body:     poolPolicyBody(p),
			Resolves: fps, Risk: RiskLow,
			Title:  "Create a notification policy for load balancer pool " + named(p.Name, p.ID),
			Reason: "notification_email is deprecated in favour of the centralised notification service.",
			Note:   "Derived: alert type load_balancing_health_alert filtered on the pool, an email mechanism per address (" + strings.Join(emails, ", ") + ").",
		}
		dep := b.createOrCheck(create, same, func(k int) string {
			return "notification policy " + named(a.NotificationPolicies[k].Name, a.NotificationPolicies[k].ID)
		})
		b.add(phaseOldDelete, Step{
			ID: "load-balancer-pool.clear-email:" + p.ID, Kind: KindPoolClearEmail, Change: ChangeUpdate,
			Method: "PATCH", Path: accountPath(a.Account.ID, "load_balancers", "pools", p.ID),
			Body:      clearEmailBody,
			DependsOn: []string{dep}, Resolves: fps, Risk: RiskLow,
			Title:  "Clear notification_email of load balancer pool " + named(p.Name, p.ID),
			Reason: "Once the policy sends the notifications, the deprecated field would send them twice.",
		})
	}
}

// objectIndex indexes n existing objects of the collection a create kind writes to by what
// they do (its KindSpec.Same), obj(i) giving the i-th.
func objectIndex(create StepKind, n int, obj func(i int) any) *meaning.Index {
	keys := make([]meaning.Key, n)
	for i := range keys {
		keys[i], _ = KindSpecs[create].Same(mustJSON(obj(i))) // an object read from the API encodes
	}
	return meaning.NewIndex(n, func(i int) meaning.Key { return keys[i] })
}

// createOrCheck adds the create step, unless an existing object does what it would create
// (found in same): then a check that the object is there (what the removal depends on) takes
// its place, and the plan notes which object stands for it. It returns the id of the step
// added. label names the k-th existing object.
func (b *builder) createOrCheck(create Step, same *meaning.Index, label func(k int) string) string {
	key, err := KindSpecs[create.Kind].Same(create.Body)
	k, found := same.Claim(key)
	if err != nil || !found {
		b.add(phaseCreate, create)
		return create.ID
	}
	kind := KindAccessAppVerify
	if create.Kind == KindNotificationPolicyNew {
		kind = KindNotificationPolicyVerify
	}
	_, obj, _ := strings.Cut(create.ID, ":")
	check := Step{
		ID: string(kind) + ":" + obj, Kind: kind, Change: ChangeVerify,
		Method: "GET", Path: create.Path, Body: create.Body, Risk: RiskNone,
		Title:  "Check " + label(k) + ", which does what the plan would create",
		Reason: "It exists already (written by someone else) and does the same: nothing is created; the old object is retired once it is read in place.",
		Checks: []string{label(k) + " is there and does what the body describes"},
	}
	b.add(phaseVerify, check)
	b.note(fmt.Sprintf("already there: %s does what the plan would create (%s): it is not created again", label(k), strings.ToLower(create.Title[:1])+create.Title[1:]))
	return check.ID
}

// tunnels plans legacy tunnels: guidance only (the tunnel API manages the same tunnels).
func tunnels(b *builder, a *inventory.AccountInventory) {
	for _, t := range a.Tunnels {
		fps := b.findings(vocab.ArgoTunnelsAPI, vocab.KindTunnel, t.ID)
		if len(fps) == 0 {
			continue
		}
		b.add(phaseManual, Step{
			ID: "tunnel.move:" + t.ID, Kind: KindTunnelMove, Manual: true,
			Method: "GET", Path: accountPath(a.Account.ID, "cfd_tunnel", t.ID),
			Resolves: fps, Risk: RiskLow,
			Title:  fmt.Sprintf("Manage tunnel %q through the tunnel API", t.Name),
			Reason: "The legacy /accounts/:account_id/tunnels API is deprecated; its replacement is /accounts/:account_id/cfd_tunnel.",
			Note:   "No data moves: point scripts and tools at /cfd_tunnel (the GET shown reads the same tunnel there).",
		})
	}
}

// bookmarks plans Access bookmarks -> Access applications of type bookmark: create the app
// (a bookmark application has no Access policies to decide), then delete the old bookmark.
// An application that does the same exists already (written by someone else, found by what
// it does): it is checked instead of created.
func bookmarks(b *builder, a *inventory.AccountInventory) {
	same := objectIndex(KindAccessAppCreate, len(a.AccessApps), func(i int) any { return a.AccessApps[i] })
	for _, bm := range a.AccessBookmarks {
		fps := b.findings(vocab.AccessBookmarksAPI, vocab.KindAccessBookmark, bm.ID)
		if len(fps) == 0 {
			continue
		}
		dep := b.createOrCheck(Step{
			ID: "access-app.create:" + bm.ID, Kind: KindAccessAppCreate, Change: ChangeCreate,
			Method: "POST", Path: accountPath(a.Account.ID, "access", "apps"),
			Body:     bookmarkAppBody(bm),
			Resolves: fps, Risk: RiskLow,
			Title:  fmt.Sprintf("Create an Access application of type bookmark for %q", bm.Name),
			Reason: "The bookmarks API is deprecated; bookmarks are Access applications of type bookmark.",
		}, same, func(k int) string {
			return "Access application " + named(a.AccessApps[k].Name, a.AccessApps[k].ID)
		})
		b.add(phaseOldDelete, Step{
			ID: "access-bookmark.delete:" + bm.ID, Kind: KindAccessBookmarkDelete, Change: ChangeDelete,
			Method: "DELETE", Path: accountPath(a.Account.ID, "access", "bookmarks", bm.ID),
			DependsOn: []string{dep}, Resolves: fps, Risk: RiskLow,
			Title:  fmt.Sprintf("Delete the old bookmark %q", bm.Name),
			Reason: "The application replaces it; two launcher tiles would otherwise show.",
		})
	}
}
