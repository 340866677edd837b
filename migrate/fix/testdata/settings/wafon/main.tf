# The previous WAF's switch in settings overrides of four zones (provider v4): on for a free
# zone, on for a zone whose managed rules entry point the module declares, driven by a
# variable, and off.

variable "account_id" {
  type    = string
  default = "4e6d50a41172bca54f222576aec3fc2b"
}

variable "docs_waf" {
  type = string
}

resource "cloudflare_zone" "shop" {
  account_id = var.account_id
  zone       = "shop.example.net"
  plan       = "free"
}

resource "cloudflare_zone_settings_override" "shop" {
  zone_id = cloudflare_zone.shop.id

  settings {
    ssl = "strict"
    waf = "on"
  }
}

resource "cloudflare_zone" "blog" {
  account_id = var.account_id
  zone       = "blog.example.net"
  plan       = "pro"
}

resource "cloudflare_zone_settings_override" "blog" {
  zone_id = cloudflare_zone.blog.id

  settings {
    waf            = "on"
    security_level = "high"
  }
}

# The blog's own managed rules: an exception for its health checks, before anything it executes.
resource "cloudflare_ruleset" "blog_managed" {
  zone_id = cloudflare_zone.blog.id
  name    = "managed"
  kind    = "zone"
  phase   = "http_request_firewall_managed"

  rules {
    action      = "skip"
    expression  = "http.request.uri.path eq \"/healthz\""
    description = "health checks"
    enabled     = true
    action_parameters {
      ruleset = "current"
    }
    logging {
      enabled = false
    }
  }
}

resource "cloudflare_zone" "docs" {
  account_id = var.account_id
  zone       = "docs.example.net"
  plan       = "business"
}

resource "cloudflare_zone_settings_override" "docs" {
  zone_id = cloudflare_zone.docs.id

  settings {
    always_use_https = "on"
    waf              = var.docs_waf
  }
}

resource "cloudflare_zone" "static" {
  account_id = var.account_id
  zone       = "static.example.net"
  plan       = "pro"
}

resource "cloudflare_zone_settings_override" "static" {
  zone_id = cloudflare_zone.static.id

  settings {
    waf    = "off"
    brotli = "on"
  }
}
