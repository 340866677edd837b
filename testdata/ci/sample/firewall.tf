variable "zone_id" {}

resource "cloudflare_filter" "bad_bots" {
  zone_id    = var.zone_id
  expression = "(http.user_agent contains \"BadBot\")"
}

resource "cloudflare_firewall_rule" "bad_bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bad_bots.id
  action    = "block"
}
