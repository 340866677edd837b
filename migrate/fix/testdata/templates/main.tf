locals {
  zone_id  = "5be2a1f0c9d84e7fa1b2c3d4e5f60718"
  partners = ["198.51.100.7", "203.0.113.9"]
}

resource "cloudflare_filter" "partners" {
  zone_id     = local.zone_id
  description = "partner API clients"
  expression  = templatefile("${path.module}/rules/partners.tpl", { ips = local.partners })
}

resource "cloudflare_firewall_rule" "partners" {
  zone_id   = local.zone_id
  filter_id = cloudflare_filter.partners.id
  action    = "bypass"
  products  = ["waf", "uaBlock"]
  priority  = 5
}

resource "cloudflare_filter" "geo" {
  zone_id    = local.zone_id
  expression = <<-EOT
    (ip.geoip.continent eq "T1")
    or (ip.geoip.country in {"KP" "SY"} and not http.request.uri.path contains "/status")
  EOT
}

resource "cloudflare_firewall_rule" "geo" {
  zone_id     = local.zone_id
  filter_id   = cloudflare_filter.geo.id
  action      = "block"
  description = "Tor and embargoed countries"
  priority    = 10
}
