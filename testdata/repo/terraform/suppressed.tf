variable "zone_id" {}

# sunset:ignore rate-limiting-v1 migrating with the Q3 WAF project
resource "cloudflare_rate_limit" "api" {
  zone_id   = var.zone_id
  threshold = 100
  period    = 60
  match {
    request {
      url_pattern = "example.com/api/*"
    }
  }
  action {
    mode    = "ban"
    timeout = 600
  }
}

# sunset:ignore filters
resource "cloudflare_filter" "no_reason" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path eq \"/\""
}

# sunset:ignore firewall-rules until=2024-12-31 temporary, expired
resource "cloudflare_firewall_rule" "expired" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.no_reason.id
  action    = "block"
}

resource "cloudflare_argo_tunnel" "trailing" { # sunset:ignore argo-tunnels-api removed next sprint
  account_id = "x"
  name       = "t"
  secret     = "s"
}
