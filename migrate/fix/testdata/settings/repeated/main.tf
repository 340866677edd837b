# Settings overrides repeated by for_each (one zone per instance) and count (a toggle).

variable "zones" {
  type = map(object({
    id  = string
    ssl = optional(string)
    waf = optional(string, "off")
  }))
}

variable "enabled" {
  type    = bool
  default = true
}

resource "cloudflare_zone_settings_override" "each" {
  for_each = var.zones
  zone_id  = each.value.id

  settings {
    ssl              = each.value.ssl
    always_use_https = "on"
    brotli           = "on"
    waf              = each.value.waf
  }
}

resource "cloudflare_zone_settings_override" "toggle" {
  count   = var.enabled ? 1 : 0
  zone_id = "0da42c8d2132a9ddaf714f9e7c920711"

  settings {
    http3 = var.enabled ? "on" : null
    ipv6  = "on"
  }
}
