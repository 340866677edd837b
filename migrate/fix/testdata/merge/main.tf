variable "zone_id" {
  type    = string
  default = "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d"
}

# The custom rules written since the dashboard moved to rulesets.
resource "cloudflare_ruleset" "waf_custom" {
  zone_id = var.zone_id
  name    = "Custom rules"
  kind    = "zone"
  phase   = "http_request_firewall_custom"

  rules {
    action      = "block"
    expression  = "(http.request.uri.path contains \"/phpmyadmin\")"
    description = "no phpmyadmin"
    enabled     = true
  }
}

# Still a firewall rule: migrated into the ruleset above.
resource "cloudflare_filter" "login" {
  zone_id    = var.zone_id
  expression = "(http.request.uri.path eq \"/login\" and ip.geoip.country ne \"DE\")"
}

resource "cloudflare_firewall_rule" "login" {
  zone_id     = var.zone_id
  filter_id   = cloudflare_filter.login.id
  action      = "managed_challenge"
  description = "login from abroad"
}
