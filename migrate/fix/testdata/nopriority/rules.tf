# Listed block first, but without priorities an allow ran before a block.
resource "cloudflare_filter" "admin" {
  zone_id    = cloudflare_zone.shop.id
  expression = "http.request.uri.path matches \"^/admin\""
}

resource "cloudflare_firewall_rule" "admin_block" {
  zone_id     = cloudflare_zone.shop.id
  filter_id   = cloudflare_filter.admin.id
  action      = "block"
  description = "No admin from outside"
}

resource "cloudflare_filter" "office" {
  zone_id     = cloudflare_zone.shop.id
  expression  = "ip.src in {203.0.113.0/24}"
  description = "office network"
}

resource "cloudflare_firewall_rule" "office_allow" {
  zone_id   = cloudflare_zone.shop.id
  filter_id = cloudflare_filter.office.id
  action    = "allow"
}

resource "cloudflare_filter" "search" {
  zone_id    = cloudflare_zone.shop.id
  expression = "cf.client.bot"
}

resource "cloudflare_firewall_rule" "search_bypass" {
  zone_id   = cloudflare_zone.shop.id
  filter_id = cloudflare_filter.search.id
  action    = "bypass"
  products  = ["waf", "rateLimit"]
}

# Tor exit traffic: challenged.
resource "cloudflare_filter" "threat" {
  zone_id    = cloudflare_zone.shop.id
  expression = "ip.geoip.country eq \"T1\""
}

resource "cloudflare_firewall_rule" "threat" {
  zone_id   = cloudflare_zone.shop.id
  filter_id = cloudflare_filter.threat.id
  action    = "managed_challenge"
}
