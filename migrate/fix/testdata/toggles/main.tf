# Each protection is switched on or off per environment: a filter and its rule share the
# toggle, and the rule names the filter's only instance.

resource "cloudflare_filter" "back_office" {
  count       = var.protect_back_office ? 1 : 0
  zone_id     = var.zone_id
  description = "back office from elsewhere than the office"
  expression  = "(http.request.uri.path contains \"/back-office/\") and ip.src ne ${var.office_ip}"
}

resource "cloudflare_firewall_rule" "back_office" {
  count       = var.protect_back_office ? 1 : 0
  zone_id     = var.zone_id
  description = "Back office only from the office"
  filter_id   = cloudflare_filter.back_office[0].id
  action      = "block"
  priority    = 20
}

resource "cloudflare_filter" "scanners" {
  count   = var.challenge_scanners ? 1 : 0
  zone_id = var.zone_id
  expression = <<-EOT
    (lower(http.user_agent) contains "sqlmap")
    or (lower(http.user_agent) contains "nikto")
    or (http.request.uri.query contains "union+select")
  EOT
}

resource "cloudflare_firewall_rule" "scanners" {
  count     = var.challenge_scanners ? 1 : 0
  zone_id   = var.zone_id
  filter_id = one(cloudflare_filter.scanners[*].id)
  action    = "managed_challenge"
}

resource "cloudflare_filter" "fence" {
  count       = var.fence_countries ? 1 : 0
  zone_id     = var.zone_id
  description = "countries the shop does not ship to"
  expression  = "ip.geoip.country in {${join(" ", formatlist("\"%s\"", var.fenced_countries))}} and not http.request.uri.path eq \"/status\""
}

resource "cloudflare_firewall_rule" "fence" {
  count     = var.fence_countries ? 1 : 0
  zone_id   = var.zone_id
  filter_id = try(cloudflare_filter.fence[0].id, null)
  action    = "js_challenge"
}

# Challenges posts from visitors with a bad reputation.
resource "cloudflare_filter" "risky_posts" {
  count      = var.gate_risky_posts ? 1 : 0
  zone_id    = var.zone_id
  expression = "http.request.method eq \"POST\" and cf.threat_score gt 25"
}

resource "cloudflare_firewall_rule" "risky_posts" {
  count     = var.gate_risky_posts ? 1 : 0
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.risky_posts.*.id[0]
  action    = "challenge"
}

# Kept for the next sale; no rule uses it yet.
resource "cloudflare_filter" "sale_bots" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path eq \"/sale\" and not cf.client.bot"
}

# Read by the monitoring stack, not by a rule.
resource "cloudflare_filter" "maintenance" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path eq \"/maintenance\""
}

output "maintenance_filter_id" {
  value = cloudflare_filter.maintenance.id
}
