locals {
  blocked_paths = ["/xmlrpc.php", "/wp-login.php", "/.env"]
}

resource "cloudflare_filter" "paths" {
  count       = length(local.blocked_paths)
  zone_id     = var.zone_id
  description = "blocked path ${local.blocked_paths[count.index]}"
  expression  = "http.request.uri.path eq \"${local.blocked_paths[count.index]}\""
}

resource "cloudflare_firewall_rule" "paths" {
  count       = length(local.blocked_paths)
  zone_id     = var.zone_id
  description = cloudflare_filter.paths[count.index].description
  filter_id   = cloudflare_filter.paths[count.index].id
  action      = "block"
  priority    = 100 + count.index
}

resource "cloudflare_filter" "health" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path eq \"/health\" and ip.geoip.asnum eq 64496"
}

resource "cloudflare_firewall_rule" "health" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.health.id
  action    = "allow"
  priority  = 1
}
