variable "zone_id" {}
variable "account_id" {}

resource "cloudflare_ruleset" "custom" {
  zone_id = var.zone_id
  name    = "custom rules"
  kind    = "zone"
  phase   = "http_request_firewall_custom"

  rules {
    action      = "block"
    expression  = "(http.user_agent contains \"BadBot\") or (ip.src.country in {\"T1\" \"XX\"})"
    description = "bad bots"
    enabled     = true
  }

  dynamic "rules" {
    for_each = var.extra_rules
    content {
      action     = rules.value.action
      expression = rules.value.expression
    }
  }
}

resource "cloudflare_record" "srv" {
  zone_id = var.zone_id
  name    = "_sip._tcp"
  type    = "SRV"
  data {
    priority = 0
    weight   = 0
    port     = 5060
    target   = "sip.example.com"
  }
}

resource "cloudflare_record" "www" {
  zone_id = var.zone_id
  name    = "www"
  type    = "A"
  content = "192.0.2.1"
}

resource "cloudflare_zone_setting" "https" {
  zone_id    = var.zone_id
  setting_id = "always_use_https"
  value      = "on"
}

resource "cloudflare_zone_setting" "tls" {
  zone_id    = var.zone_id
  setting_id = "min_tls_version"
  value      = "1.2"
}

resource "cloudflare_zero_trust_tunnel_cloudflared" "t" {
  account_id = var.account_id
  name       = "t"
}

resource "cloudflare_healthcheck" "web" {
  zone_id                      = var.zone_id
  name                         = "web"
  address                      = "www.example.com"
  notification_email_addresses = ["ops@example.com"]
}

module "legacy_waf" {
  source             = "./modules/waf"
  count              = 2
  notification_email = "ops@example.com"
  filter_expression  = "ip.geoip.country eq \"XX\""
}

resource "cloudflare_dns_settings" "main" {
  zone_id = var.zone_id
  settings = {
    flatten_all_cnames = true
  }
}
