# A zone's firewall rules and rate limits, as provider v4 created them.
variable "zone_id" {
  type    = string
  default = "7c1cbd0ae7f1a2bbf1a5bb0a8c6b8f02"
}

variable "shop_host" {
  type    = string
  default = "shop.sequence.example"
}

resource "cloudflare_filter" "admin" {
  zone_id     = var.zone_id
  description = "admin from outside"
  expression  = "(http.request.uri.path contains \"/admin\" and not ip.src in {192.0.2.0/24})"
}

resource "cloudflare_firewall_rule" "admin" {
  zone_id     = var.zone_id
  filter_id   = cloudflare_filter.admin.id
  action      = "block"
  priority    = 1
  description = "Block the admin area from outside"
}

resource "cloudflare_filter" "bots" {
  zone_id    = var.zone_id
  expression = "(http.user_agent contains \"BadBot\")"
}

resource "cloudflare_firewall_rule" "bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bots.id
  action    = "managed_challenge"
  priority  = 2
}

# Password guessing on the shop's login form.
resource "cloudflare_rate_limit" "login" {
  zone_id   = var.zone_id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "${var.shop_host}/login*"
      methods     = ["POST"]
    }
  }
  action {
    mode    = "ban"
    timeout = 600
  }
  description = "login"
}

resource "cloudflare_rate_limit" "api" {
  zone_id   = var.zone_id
  threshold = 100
  period    = 60
  match {
    request {
      url_pattern = "api.sequence.example/*"
    }
  }
  action {
    mode    = "challenge"
  }
  description = "api"
}
