# Settings overrides (provider v4) whose settings are set only under conditions: null
# branches, lookups and variables that may be null, dynamic blocks over collections that may
# be empty; settings the zone settings API has under other names, under another endpoint,
# or not at all.

variable "zone_id" {
  type = string
}

variable "plan" {
  type = string
}

variable "polish" {
  type    = string
  default = null
}

variable "settings" {
  type    = map(string)
  default = {}
}

variable "minify" {
  type = object({
    css  = string
    js   = string
    html = string
  })
  default = null
}

variable "hsts" {
  type    = bool
  default = false
}

resource "cloudflare_zone_settings_override" "site" {
  zone_id = var.zone_id

  settings {
    ssl                       = "full"
    zero_rtt                  = "on"
    mirage                    = var.plan != "free" ? "on" : null
    webp                      = var.plan == "free" ? null : "on"
    polish                    = var.polish
    http2                     = lookup(var.settings, "http2", null)
    cache_level               = lookup(var.settings, "cache_level", "aggressive")
    challenge_ttl             = "1800"
    universal_ssl             = "on"
    log_to_cloudflare         = "on"
    visitor_ip                = "on"
    filter_logs_to_cloudflare = "off"

    dynamic "minify" {
      for_each = var.minify[*]
      content {
        css  = minify.value.css
        js   = minify.value.js
        html = minify.value.html
      }
    }

    dynamic "security_header" {
      for_each = var.hsts ? [31536000] : []
      iterator = hsts
      content {
        enabled = true
        max_age = hsts.value
      }
    }
  }
}

variable "other_zone_id" {
  type = string
}

variable "env_settings" {
  type    = map(string)
  default = null
}

# The settings block itself made by a dynamic block: none when env_settings is null.
resource "cloudflare_zone_settings_override" "env" {
  zone_id = var.other_zone_id

  dynamic "settings" {
    for_each = var.env_settings[*]
    content {
      always_online = lookup(settings.value, "always_online", null)
      brotli        = "on"
    }
  }
}
