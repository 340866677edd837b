variable "zone_id" {}
variable "allowed_ip" {}

resource "cloudflare_filter" "bad_bots" {
  zone_id     = var.zone_id
  description = "bad bots"
  expression  = "(http.user_agent contains \"BadBot\") or (ip.geoip.country in {\"T1\" \"XX\"})"
}

resource "cloudflare_firewall_rule" "bad_bots" {
  zone_id     = var.zone_id
  description = "block bad bots"
  filter_id   = cloudflare_filter.bad_bots.id
  action      = "block"
}

resource "cloudflare_filter" "office" {
  zone_id    = var.zone_id
  expression = "ip.src ne ${var.allowed_ip} and cf.threat_score gt 10"
}

resource "cloudflare_filter" "heredoc" {
  zone_id    = var.zone_id
  expression = <<-EOT
    (http.host eq "%{if var.zone_id != ""}example.com%{endif}")
  EOT
}

resource "cloudflare_filter" "printf" {
  zone_id    = var.zone_id
  expression = "(http.host eq \"%[4]s\" and http.request.method eq \"GET\")"
}

resource "cloudflare_filter" "broken" {
  zone_id    = var.zone_id
  expression = "(http.request.uri.path ~ \"^.*/wp-login.php$\""
}

resource "cloudflare_rate_limit" "login" {
  zone_id   = var.zone_id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "example.com/login*"
    }
  }
  action {
    mode    = "simulate"
    timeout = 60
  }
}

resource "cloudflare_waf_package" "owasp" {
  zone_id     = var.zone_id
  package_id  = "a25a9a7e9c00afc1fb2e0245519d725b"
  sensitivity = "medium"
  action_mode = "simulate"
}

resource "cloudflare_waf_group" "wordpress" {
  zone_id  = var.zone_id
  group_id = "de677e5818985db1285d0e80225f06e5"
  mode     = "on"
}

resource "cloudflare_waf_rule" "sqli" {
  zone_id = var.zone_id
  rule_id = "100000"
  mode    = "simulate"
}

resource "cloudflare_waf_override" "admin" {
  zone_id = var.zone_id
  urls    = ["example.com/admin*"]
  rules = {
    "100015" = "disable"
  }
}
