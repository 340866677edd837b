resource "cloudflare_zone" "docs" {
  account = {
    id = "1679091c5a880faf6fb5e6087eb1b2dc"
  }
  name = "docs.example.com"
}

resource "cloudflare_ruleset" "docs_limits" {
  zone_id = cloudflare_zone.docs.id
  name    = "default"
  kind    = "zone"
  phase   = "http_ratelimit"
  rules = [
    {
      action     = "block"
      expression = "http.request.uri.path wildcard \"/search*\""
      ratelimit = {
        characteristics     = ["cf.colo.id", "ip.src"]
        period              = 60
        requests_per_period = 100
        mitigation_timeout  = 60
      }
    }
  ]
}

resource "cloudflare_rate_limit" "signup" {
  zone_id   = cloudflare_zone.docs.id
  threshold = 5
  period    = 60
  match = {
    request = {
      url = "${cloudflare_zone.docs.name}/signup*"
    }
  }
  action = {
    mode    = "ban"
    timeout = 600
  }
}

resource "cloudflare_rate_limit" "feedback" {
  zone_id   = cloudflare_zone.docs.id
  threshold = 10
  period    = 60
  match = {
    request = {
      url = "docs.example.com/feedback*"
    }
  }
  action = {
    mode    = "ban"
    timeout = 60
  }
}
