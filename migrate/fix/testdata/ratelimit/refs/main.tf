variable "zone_id" {
  type    = string
  default = "5d41402abc4b2a76b9719d911017c592"
}

variable "subdomain" {
  type    = string
  default = "api"
}

# Each environment sets these.
variable "domain" {
  type = string
}

variable "login_period" {
  type = number
}

locals {
  api_host  = "${var.subdomain}.example.org"
  api_limit = 100
}

# API writes: the host from a local, the limit from another.
resource "cloudflare_rate_limit" "api" {
  zone_id   = var.zone_id
  threshold = local.api_limit
  period    = 60
  match {
    request {
      url_pattern = "${local.api_host}/v1/*"
      methods     = ["POST"]
    }
  }
  action {
    mode    = "ban"
    timeout = 600
  }
  description = "API writes on ${var.subdomain}"
}

# The login form of the environment's domain, over the environment's window.
resource "cloudflare_rate_limit" "login" {
  zone_id   = var.zone_id
  threshold = 5
  period    = var.login_period
  match {
    request {
      url_pattern = "www.${var.domain}/login*"
    }
  }
  action {
    mode = "challenge"
  }
}

variable "report_url" {
  type    = string
  default = "reports.example.org/export/*"
}

variable "report_mode" {
  type    = string
  default = "simulate"
}

# The whole url in one variable: its host and path are read from the value.
resource "cloudflare_rate_limit" "reports" {
  zone_id   = var.zone_id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = var.report_url
    }
  }
  action {
    mode    = "ban"
    timeout = 60
  }
}

# The mode from a variable: it decides the action.
resource "cloudflare_rate_limit" "exports" {
  zone_id   = var.zone_id
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "reports.example.org/download/*"
    }
  }
  action {
    mode    = var.report_mode
    timeout = 60
  }
}
