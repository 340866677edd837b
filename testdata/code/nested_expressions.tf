# Transform and rate limiting rules whose other members hold expressions of their own.
resource "cloudflare_ruleset" "headers_v4" {
  zone_id = var.zone_id
  name    = "origin headers"
  kind    = "zone"
  phase   = "http_request_late_transform"
  rules {
    action     = "rewrite"
    expression = "true"
    action_parameters {
      headers {
        name       = "X-ASN"
        operation  = "set"
        expression = "to_string(ip.geoip.asnum)" # want: geoip-field-names
      }
      headers {
        name      = "X-Note"
        operation = "set"
        value     = "was ip.geoip.country"
      }
    }
  }
}

resource "cloudflare_ruleset" "v5" {
  zone_id = var.zone_id
  name    = "rewrites"
  kind    = "zone"
  phase   = "http_request_transform"
  rules = [{
    action     = "rewrite"
    expression = "http.host eq \"example.com\""
    action_parameters = {
      uri = {
        path = { expression = "concat(\"/\", lower(ip.geoip.continent))" } # want: geoip-field-names
      }
    }
    }, {
    action     = "block"
    expression = "http.request.uri.path eq \"/login\""
    ratelimit = {
      characteristics     = ["ip.src"]
      counting_expression = "ip.geoip.country eq \"T1\"" # want: geoip-field-names
      period              = 60
    }
  }]
}

# Not a rule: a resource of another kind with an attribute of the same name.
resource "cloudflare_list_item" "note" {
  account_id = var.account_id
  list_id    = var.list_id
  comment    = "expression = ip.geoip.asnum"
}
