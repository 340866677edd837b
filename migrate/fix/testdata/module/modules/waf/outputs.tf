output "rule_ids" {
  value = { for k, r in cloudflare_firewall_rule.this : k => r.id }
}
