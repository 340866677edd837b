resource "cloudflare_zone" "docs" {
  account_id = "4e6d50a41172bca54f222576aec3fc2b"
  zone       = "docs.example.io"
}

resource "cloudflare_zone_settings_override" "docs" {
  zone_id = cloudflare_zone.docs.id

  settings {
    always_use_https = "on"
    brotli           = "on" # faster pages
    min_tls_version  = "1.2"
    minify {
      css  = "on"
      js   = "on"
      html = "off"
    }
    mobile_redirect {
      status           = "on"
      mobile_subdomain = "m"
      strip_uri        = false
    }
    server_side_exclude = "on"
    ssl                 = "strict"
    waf                 = "off"
  }
}
resource "cloudflare_record" "www" {
  zone_id = cloudflare_zone.docs.id
  name    = "www"
  type    = "CNAME"
  content = "docs.example.io"
  proxied = true
}
