# Provider v4 with a filter and the firewall rule that uses it: the state the round trip
# starts from.
terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.52"
    }
  }
}

variable "zone_id" {
  type = string
}

resource "cloudflare_filter" "block_admin" {
  zone_id     = var.zone_id
  description = "admin from outside the office"
  expression  = "(http.request.uri.path contains \"/admin\" and not ip.src in {192.0.2.0/24})"
}

resource "cloudflare_firewall_rule" "block_admin" {
  zone_id     = var.zone_id
  description = "admin from outside the office"
  filter_id   = cloudflare_filter.block_admin.id
  action      = "block"
}
