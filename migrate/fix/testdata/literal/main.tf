terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.52"
    }
  }
}

variable "zone_id" {
  type    = string
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

# Block the bad bots before anything else.
resource "cloudflare_filter" "bad_bots" {
  zone_id     = var.zone_id
  description = "bad bots"
  expression  = "(http.user_agent contains \"BadBot\")"
}

resource "cloudflare_firewall_rule" "bad_bots" {
  zone_id     = var.zone_id
  description = "Block bad bots"
  filter_id   = cloudflare_filter.bad_bots.id
  action      = "block"
  priority    = 1
}

resource "cloudflare_filter" "office" {
  zone_id    = var.zone_id
  expression = "ip.src in {192.0.2.0/24} and ip.geoip.country eq \"GB\""
}

resource "cloudflare_firewall_rule" "office" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.office.id
  action    = "allow"
  priority  = 2
}

resource "cloudflare_filter" "wp" {
  zone_id    = var.zone_id
  expression = "http.request.uri.path contains \"/wp-login.php\""
}

resource "cloudflare_firewall_rule" "wp" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.wp.id
  action    = "challenge"
  paused    = true
}

output "office_rule" {
  value = cloudflare_firewall_rule.office.id
}
