variable "zone_id" {
  type = string
}

variable "rules" {
  description = "Firewall rules by name."
  type = map(object({
    expression  = string
    action      = string
    description = optional(string)
  }))
  default = {
    block_cn = {
      expression  = "ip.geoip.country eq \"CN\""
      action      = "block"
      description = "no CN"
    }
    office = {
      expression = "ip.src in {198.51.100.0/24}"
      action     = "allow"
    }
  }
}

resource "cloudflare_filter" "this" {
  for_each    = var.rules
  zone_id     = var.zone_id
  expression  = each.value.expression
  description = each.value.description
}

resource "cloudflare_firewall_rule" "this" {
  for_each    = var.rules
  zone_id     = var.zone_id
  filter_id   = cloudflare_filter.this[each.key].id
  action      = each.value.action
  description = each.value.description
}
