variable "shop_zone_id" {
  type = string
}

variable "blog_zone_id" {
  type = string
}

variable "waf_rules" {
  description = "The shop's rules; each environment sets its own in its tfvars (none in staging)."
  type = list(object({
    name        = string
    expression  = string
    action      = string
    description = optional(string)
    priority    = optional(number)
  }))
}

# The shop: one filter per rule, and each rule finds its filter by the filter's ref.
resource "cloudflare_filter" "shop" {
  for_each    = { for r in var.waf_rules : r.name => r }
  zone_id     = var.shop_zone_id
  ref         = each.key
  description = each.value.description
  expression  = each.value.expression
}

resource "cloudflare_firewall_rule" "shop" {
  for_each    = { for r in var.waf_rules : r.name => r }
  zone_id     = var.shop_zone_id
  description = each.value.description
  filter_id   = one([for f in values(cloudflare_filter.shop) : f.id if f.ref == lookup(each.value, "name")])
  action      = each.value.action
  priority    = each.value.priority
}

locals {
  blog_paths = {
    login = {
      path        = "/wp-login.php"
      description = "login form"
    }
    xmlrpc = {
      path        = "/xmlrpc.php"
      description = "XML-RPC endpoint"
    }
  }
}

# The blog: filters looked up by their description, which differs from path to path.
resource "cloudflare_filter" "blog" {
  for_each    = local.blog_paths
  zone_id     = var.blog_zone_id
  description = each.value.description
  expression  = "http.request.uri.path eq \"${each.value.path}\" and ip.geoip.asnum ne 64500"
}

resource "cloudflare_firewall_rule" "blog" {
  for_each  = local.blog_paths
  zone_id   = var.blog_zone_id
  filter_id = [for k, f in cloudflare_filter.blog : f.id if f.description == each.value.description][0]
  action    = "managed_challenge"
  priority  = 5
}

resource "cloudflare_filter" "blog_feeds" {
  for_each   = local.blog_paths
  zone_id    = var.blog_zone_id
  expression = "http.request.uri.path eq \"${each.value.path}/feed\""
}

resource "cloudflare_firewall_rule" "blog_feeds" {
  for_each  = local.blog_paths
  zone_id   = var.blog_zone_id
  filter_id = [for name, f in cloudflare_filter.blog_feeds : f.id if name == each.key][0]
  action    = "js_challenge"
}
