resource "cloudflare_zone" "blog" {
  account = {
    id = "a87ff679a2f3e71d9181a67b7542122c"
  }
  name = "blog.example.org"
}

resource "cloudflare_zone_setting" "brotli" {
  zone_id    = cloudflare_zone.blog.id
  setting_id = "brotli"
  value      = "on"
}

resource "cloudflare_zone_setting" "ssl" {
  zone_id    = cloudflare_zone.blog.id
  setting_id = "ssl"
  value      = "strict"
}

resource "cloudflare_zone_setting" "mobile" {
  zone_id    = cloudflare_zone.blog.id
  setting_id = "mobile_redirect"
  value = {
    status           = "on"
    mobile_subdomain = "m"
    strip_uri        = true
  }
}
