variable "account_id" {}
variable "zone_id" {}

resource "cloudflare_argo_tunnel" "legacy" {
  account_id = var.account_id
  name       = "legacy"
  secret     = "AQIDBAUGBwgBAgMEBQYHCAECAwQFBgcIAQIDBAUGBwg="
}

resource "cloudflare_access_bookmark" "wiki" {
  account_id = var.account_id
  name       = "wiki"
  domain     = "wiki.example.com"
}

resource "cloudflare_record" "sip" {
  zone_id = var.zone_id
  name    = "_sip._tcp"
  type    = "SRV"
  data {
    service  = "_sip"
    proto    = "_tcp"
    name     = "example.com"
    priority = 0
    weight   = 0
    port     = 5060
    target   = "sip.example.com"
  }
}

resource "cloudflare_record" "xmpp" {
  count   = 2
  zone_id = var.zone_id
  name    = "_xmpp._tcp"
  type    = "SRV"
  dynamic "data" {
    for_each = [1]
    content {
      service = "_xmpp"
      target  = "xmpp.example.com"
      port    = 5222
    }
  }
}

resource "cloudflare_zone_settings_override" "main" {
  zone_id = var.zone_id
  settings {
    brotli              = "on"
    cname_flattening    = "flatten_at_root"
    server_side_exclude = "on"
    privacy_pass        = "off"
    minify {
      css  = "on"
      js   = "off"
      html = "off"
    }
    mobile_redirect {
      status           = "on"
      mobile_subdomain = "m"
      strip_uri        = false
    }
  }
}

resource "cloudflare_zone_setting" "brotli" {
  for_each   = toset(["a"])
  zone_id    = var.zone_id
  setting_id = "brotli"
  value      = "on"
}

resource "cloudflare_load_balancer_pool" "web" {
  account_id         = var.account_id
  name               = "web"
  notification_email = "ops@example.com"
  origins {
    name    = "a"
    address = "192.0.2.1"
  }
}

resource "cloudflare_healthcheck" "web" {
  zone_id            = var.zone_id
  name               = "web"
  address            = "www.example.com"
  type               = "HTTP"
  notification_email = "ops@example.com"
}
