# A rate limit written with provider v5's syntax (attributes, not blocks).
resource "cloudflare_rate_limit" "api" {
  zone_id   = "6b2d4f8a1c3e5d7f9a0b2c4d6e8f0a1b"
  threshold = 100
  period    = 60
  action = {
    mode    = "ban"
    timeout = 600
  }
  match = {
    request = {
      methods = ["POST"]
      url     = "api.example.com/v1/*"
    }
  }
}
