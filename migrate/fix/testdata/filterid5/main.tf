# Provider v5's syntax: the filter's fields in body, the rule's action an object, and the
# rule naming its filter as filter = { id = ... }, as the provider's upgrade leaves it.

variable "zone_id" {
  type = string
}

variable "guard_api" {
  type    = bool
  default = true
}

resource "cloudflare_filter" "login" {
  zone_id = var.zone_id
  body = [{
    description = "login from outside the EU"
    expression  = "http.request.uri.path eq \"/login\" and not ip.geoip.is_in_european_union"
  }]
}

resource "cloudflare_firewall_rule" "login" {
  zone_id = var.zone_id
  action = {
    mode = "managed_challenge"
  }
  filter = {
    id = cloudflare_filter.login.id
  }
}

resource "cloudflare_filter" "api" {
  count   = var.guard_api ? 1 : 0
  zone_id = var.zone_id
  body = [{
    expression = "starts_with(http.request.uri.path, \"/api/\") and not cf.client.bot"
  }]
}

resource "cloudflare_firewall_rule" "api" {
  count   = var.guard_api ? 1 : 0
  zone_id = var.zone_id
  action = {
    mode = "js_challenge"
  }
  filter = {
    id = cloudflare_filter.api[0].id
  }
}
