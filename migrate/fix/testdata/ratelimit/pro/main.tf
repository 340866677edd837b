terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.40"
    }
  }
}

resource "cloudflare_zone" "shop" {
  account_id = "9a7806061c88ada191ed06f989cc3dac"
  zone       = "shop.example.com"
  plan       = "pro"
}

# Kept from the old checkout; off since the redesign.
resource "cloudflare_rate_limit" "legacy_checkout" {
  zone_id   = cloudflare_zone.shop.id
  threshold = 20
  period    = 60
  disabled  = true
  match {
    request {
      url_pattern = "shop.example.com/checkout-v1/*"
    }
  }
  action {
    mode    = "ban"
    timeout = 600
  }
  description = "old checkout"
}

# Slow down password guessing on the login form.
resource "cloudflare_rate_limit" "login" {
  zone_id   = cloudflare_zone.shop.id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "shop.example.com/account/login*"
      schemes     = ["HTTPS"]
    }
  }
  action {
    mode    = "ban"
    timeout = 3600
    response {
      content_type = "application/json"
      body         = "{\"error\":\"too many attempts\"}"
    }
  }
  description = "login brute force"
}

resource "cloudflare_rate_limit" "search" {
  zone_id   = cloudflare_zone.shop.id
  threshold = 300
  period    = 60
  match {
    request {
      url_pattern = "*/search*"
    }
  }
  action {
    mode    = "simulate"
    timeout = 60
  }
  description = "search scraping (watching)"
}

resource "cloudflare_rate_limit" "cart" {
  zone_id   = cloudflare_zone.shop.id
  threshold = 50
  period    = 30
  match {
    request {
      url_pattern = "${cloudflare_zone.shop.zone}/cart/*"
    }
  }
  bypass_url_patterns = ["shop.example.com/cart/health"]
  action {
    mode    = "managed_challenge"
    timeout = 60
  }
  description = "cart updates"
}

output "zone_id" {
  value = cloudflare_zone.shop.id
}

output "login_rate_limit" {
  value = cloudflare_rate_limit.login.id
}
