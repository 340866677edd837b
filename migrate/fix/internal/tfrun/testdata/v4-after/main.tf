# The same rule as a custom rule of provider v4's cloudflare_ruleset; the filter and the
# firewall rule leave the state without being destroyed.
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

removed {
  from = cloudflare_firewall_rule.block_admin
  lifecycle {
    destroy = false
  }
}

removed {
  from = cloudflare_filter.block_admin
  lifecycle {
    destroy = false
  }
}

resource "cloudflare_ruleset" "custom" {
  zone_id = var.zone_id
  name    = "default"
  kind    = "zone"
  phase   = "http_request_firewall_custom"

  rules {
    description = "admin from outside the office"
    expression  = "(http.request.uri.path contains \"/admin\" and not ip.src in {192.0.2.0/24})"
    action      = "block"
    enabled     = true
  }
}
