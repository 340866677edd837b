# Firewall rules written with provider v5's syntax: the filter inside the rule. (v5.22 lets a
# configuration set neither a rule's priority nor its description, and takes only the
# challenge modes as its action.)
resource "cloudflare_firewall_rule" "wp_login" {
  zone_id = "8d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a"
  action = {
    mode = "managed_challenge"
  }
  filter = {
    description = "WordPress login from outside the EU"
    expression  = "(http.request.uri.path ~ \".*wp-login.php\" and not ip.geoip.is_in_european_union)"
  }
}

resource "cloudflare_firewall_rule" "scanners" {
  zone_id = "8d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a"
  action = {
    mode = "js_challenge"
  }
  filter = {
    expression = "ip.src eq 198.51.100.20"
  }
}
