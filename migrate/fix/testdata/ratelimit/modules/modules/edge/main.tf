variable "zone_id" {
  type = string
}

variable "region" {
  type = string
}

resource "cloudflare_rate_limit" "uploads" {
  zone_id   = var.zone_id
  threshold = 30
  period    = 60
  match {
    request {
      url_pattern = "*/upload/*"
    }
  }
  action {
    mode    = "ban"
    timeout = 300
  }
  description = "uploads"
}
