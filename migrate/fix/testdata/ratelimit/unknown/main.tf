variable "zone_id" {
  type        = string
  description = "The zone of the blog."
}

locals {
  login_path = "blog.example.net/wp-login.php"
}

resource "cloudflare_rate_limit" "wp_login" {
  zone_id   = var.zone_id
  threshold = 5
  period    = 300
  match {
    request {
      url_pattern = local.login_path
      methods     = ["POST"]
      schemes     = ["HTTP", "HTTPS"]
    }
    response {
      statuses       = [200, 401]
      origin_traffic = true
      headers = [
        { name = "Cf-Cache-Status", op = "ne", value = "HIT" },
      ]
    }
  }
  action {
    mode    = "ban"
    timeout = 86400
  }
  correlate {
    by = "nat"
  }
  description = "wp-login"
}

resource "cloudflare_rate_limit" "feed" {
  zone_id   = var.zone_id
  threshold = 600
  period    = 60
  match {
    request {
      url_pattern = "blog.example.net/feed*"
    }
  }
  action {
    mode = "js_challenge"
  }
}
