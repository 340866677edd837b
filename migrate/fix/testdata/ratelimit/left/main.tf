variable "zone_id" {
  type    = string
  default = "5d41402abc4b2a76b9719d911017c592"
}

variable "threshold" {
  type = number
}

variable "paths" {
  type    = map(number)
  default = { "/a/*" = 10, "/b/*" = 20 }
}

resource "cloudflare_rate_limit" "per_path" {
  for_each  = var.paths
  zone_id   = var.zone_id
  threshold = each.value
  period    = 60
  match {
    request {
      url_pattern = "docs.example.org${each.key}"
    }
  }
  action {
    mode    = "ban"
    timeout = 60
  }
}

resource "cloudflare_rate_limit" "tunable" {
  zone_id   = var.zone_id
  threshold = var.threshold
  period    = 60
  action {
    mode    = "ban"
    timeout = 60
  }
}

# Errors from the origin, counted by status.
resource "cloudflare_rate_limit" "origin_errors" {
  zone_id   = var.zone_id
  threshold = 20
  period    = 10
  match {
    response {
      statuses = [500, 502]
    }
  }
  action {
    mode    = "ban"
    timeout = 10
  }
}
