variable "zone_id" {
  type = string
}

variable "rules" {
  type = map(object({
    expression  = string
    action      = string
    priority    = optional(number)
    description = optional(string, "")
    paused      = optional(bool, false)
  }))
}

resource "cloudflare_filter" "this" {
  for_each    = var.rules
  zone_id     = var.zone_id
  description = each.value.description
  expression  = each.value.expression
}

resource "cloudflare_firewall_rule" "this" {
  for_each    = cloudflare_filter.this
  zone_id     = var.zone_id
  filter_id   = each.value.id
  description = each.value.description
  action      = var.rules[each.key].action
  priority    = var.rules[each.key].priority
  paused      = var.rules[each.key].paused
}
