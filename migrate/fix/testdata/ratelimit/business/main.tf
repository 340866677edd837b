variable "zone_id" {
  type    = string
  default = "eccbc87e4b5ce2fe28308fd9f2a7baf3"
}

resource "cloudflare_rate_limit" "api_auth" {
  zone_id   = var.zone_id
  threshold = 100
  period    = 900
  match {
    request {
      url_pattern = "api.example.dev/v1/*"
      methods     = ["GET", "POST"]
      schemes     = ["HTTPS"]
    }
    response {
      statuses = [401, 403]
      headers = [
        { name = "Cf-Cache-Status", op = "ne", value = "HIT" },
      ]
    }
  }
  action {
    mode    = "ban"
    timeout = 7200
  }
  description = "API clients failing auth"
}

resource "cloudflare_rate_limit" "api_nat" {
  zone_id   = var.zone_id
  threshold = 1000
  period    = 60
  match {
    request {
      url_pattern = "api.example.dev/*"
    }
  }
  correlate {
    by = "nat"
  }
  action {
    mode    = "ban"
    timeout = 60
  }
}
