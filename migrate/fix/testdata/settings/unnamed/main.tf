variable "zone_id" {
  type = string
}

variable "mobile" {
  type    = bool
  default = false
}

resource "cloudflare_zone_settings_override" "this" {
  zone_id = var.zone_id
  settings {
    privacy_pass     = "off"
    cname_flattening = "flatten_at_root"
    mobile_redirect {
      status           = "on"
      mobile_subdomain = "mobile"
      strip_uri        = true
    }
    security_level = "medium"
  }
}

resource "cloudflare_zone_settings_override" "quiet" {
  zone_id = var.zone_id
  settings {
    mobile_redirect {
      status           = var.mobile ? "on" : "off"
      mobile_subdomain = "m"
      strip_uri        = false
    }
  }
}
