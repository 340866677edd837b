# Provider v5's one resource per setting, the previous WAF's switch among them, driven by a
# variable.

variable "waf" {
  type    = string
  default = "on"
}

resource "cloudflare_zone" "api" {
  account = {
    id = "a87ff679a2f3e71d9181a67b7542122c"
  }
  name = "api.example.org"
}

resource "cloudflare_zone_setting" "api_waf" {
  zone_id    = cloudflare_zone.api.id
  setting_id = "waf"
  value      = var.waf
}

resource "cloudflare_zone_setting" "api_ssl" {
  zone_id    = cloudflare_zone.api.id
  setting_id = "ssl"
  value      = "strict"
}
