variable "zone_id" {
  type = string
}

variable "firewall_rules" {
  description = "Rules supplied per environment in its tfvars."
  type = list(object({
    name       = string
    expression = string
    action     = string
    products   = optional(list(string))
    priority   = optional(number)
  }))
}

resource "cloudflare_filter" "rules" {
  for_each   = { for r in var.firewall_rules : r.name => r }
  zone_id    = var.zone_id
  expression = each.value.expression
}

resource "cloudflare_firewall_rule" "rules" {
  for_each  = { for r in var.firewall_rules : r.name => r }
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.rules[each.key].id
  action    = each.value.action
  products  = each.value.products
  priority  = each.value.priority
}

# The deployment waits for the rules.
resource "terraform_data" "deploy" {
  input = "release-42"

  depends_on = [cloudflare_firewall_rule.rules]
}
