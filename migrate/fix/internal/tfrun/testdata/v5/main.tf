# Provider v5's cloudflare_ruleset with the same custom rule.
terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 5.22"
    }
  }
}

variable "zone_id" {
  type = string
}

resource "cloudflare_ruleset" "custom" {
  zone_id = var.zone_id
  name    = "default"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [{
    description = "admin from outside the office"
    expression  = "(http.request.uri.path contains \"/admin\" and not ip.src in {192.0.2.0/24})"
    action      = "block"
    enabled     = true
  }]
}
