variable "zone_id" {
  type = string
}

resource "cloudflare_filter" "login" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path eq \"/login\" and not ip.geoip.is_in_european_union"
}

output "login_filter_id" {
  value = cloudflare_filter.login.id
}
