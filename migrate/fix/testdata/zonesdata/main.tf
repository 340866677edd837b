# The zone found by name through the zones data source, as many modules do.
terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.40"
    }
  }
}

data "cloudflare_zones" "this" {
  filter {
    name = "shop.example.com"
  }
}

resource "cloudflare_filter" "wp_login" {
  zone_id     = data.cloudflare_zones.this.zones[0].id
  description = "WordPress login"
  expression  = "(http.request.uri.path eq \"/wp-login.php\" and not ip.geoip.country in {\"DE\" \"AT\"})"
}

resource "cloudflare_firewall_rule" "wp_login" {
  zone_id     = data.cloudflare_zones.this.zones[0].id
  description = "WordPress login from abroad"
  filter_id   = cloudflare_filter.wp_login.id
  action      = "managed_challenge"
}

resource "cloudflare_zone_settings_override" "this" {
  zone_id = lookup(data.cloudflare_zones.this.zones[0], "id")
  settings {
    brotli          = "on"
    min_tls_version = "1.2"
  }
}
