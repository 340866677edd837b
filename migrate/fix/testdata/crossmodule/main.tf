module "filters" {
  source  = "./filters"
  zone_id = "7c1e4b2a9d8f6e5c4b3a2f1e0d9c8b7a"
}

resource "cloudflare_firewall_rule" "login" {
  zone_id     = "7c1e4b2a9d8f6e5c4b3a2f1e0d9c8b7a"
  filter_id   = module.filters.login_filter_id
  action      = "js_challenge"
  description = "login outside the EU"
}
