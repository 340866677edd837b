resource "cloudflare_ruleset" "custom" {
  zone_id = cloudflare_zone.blog.id
  name    = "default"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [
    {
      action     = "block"
      expression = "http.request.uri.path eq \"/xmlrpc.php\""
    }
  ]
}

resource "cloudflare_firewall_rule" "feed" {
  zone_id = cloudflare_zone.blog.id
  action = {
    mode = "managed_challenge"
  }
  filter = {
    expression = "http.request.uri.path eq \"/feed\" and not cf.client.bot"
  }
}

resource "cloudflare_zone" "blog" {
  account = {
    id = "f037e56e89293a057740de681ac9abbe"
  }
  name = "blog.example.org"
  type = "full"
}
