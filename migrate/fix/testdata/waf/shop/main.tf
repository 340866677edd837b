terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 3.35"
    }
  }
}

variable "zone_id" {
  type    = string
  default = "b1946ac92492d2347c6235b4d2611184"
}

# OWASP: challenge from medium sensitivity up.
resource "cloudflare_waf_package" "owasp" {
  zone_id     = var.zone_id
  package_id  = "a25a9a7e9c00afc1fb2e0245519d725b"
  sensitivity = "medium"
  action_mode = "challenge"
}

resource "cloudflare_waf_group" "plugins" {
  zone_id  = var.zone_id
  group_id = "de677e5818985db1285d0e80225f06e5"
  mode     = "off"
}

resource "cloudflare_waf_rule" "sqli_probe" {
  zone_id = var.zone_id
  rule_id = "100000"
  mode    = "simulate"
}

resource "cloudflare_waf_rule" "xss" {
  zone_id = var.zone_id
  rule_id = "100001"
  mode    = "default"
}

resource "cloudflare_waf_override" "admin_uploads" {
  zone_id     = var.zone_id
  description = "admin uploads"
  urls        = ["shop.example.com/admin/*", "shop.example.com/upload*"]
  rules = {
    "100015" = "disable"
  }
  groups = {
    "ea8687e59929c1fd05ba97574ad43f77" = "simulate"
  }
}

resource "cloudflare_waf_override" "api_rewrite" {
  zone_id = var.zone_id
  urls    = ["shop.example.com/api/*"]
  rewrite_action = {
    default   = "block"
    challenge = "block"
  }
}

resource "cloudflare_record" "shop" {
  zone_id = var.zone_id
  name    = "shop"
  type    = "A"
  value   = "192.0.2.10"
  proxied = true
}
