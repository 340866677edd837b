resource "cloudflare_filter" "bad_bots" {
  zone_id     = var.zone_id
  description = "bad bots"
  expression  = "(cf.threat_score gt 14) or (ip.geoip.country in {\"XX\" \"YY\"})"
}

resource "cloudflare_firewall_rule" "bad_bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bad_bots.id
  action    = "block"
}

resource "cloudflare_zone_settings_override" "site" {
  zone_id = var.zone_id
  settings {
    brotli              = "on"
    server_side_exclude = "on"
    minify {
      css  = "on"
      js   = "off"
      html = "off"
    }
  }
}

resource "cloudflare_record" "sip" {
  zone_id = var.zone_id
  name    = "_sip._tcp"
  type    = "SRV"
  data {
    service  = "_sip"
    proto    = "_tcp"
    name     = "example.com"
    priority = 0
    weight   = 0
    port     = 5060
    target   = "sip.example.com"
  }
}

resource "cloudflare_rate_limit" "login" {
  zone_id   = var.zone_id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "example.com/login"
    }
  }
  action {
    mode    = "simulate"
    timeout = 60
  }
}
