variable "zone_id" {
  type = string
}

resource "cloudflare_dns_record" "ldap" {
  zone_id = var.zone_id
  name    = "_ldap._tcp"
  type    = "SRV"
  ttl     = 3600
  data = {
    service  = "_ldap"
    proto    = "_tcp"
    name     = "@"
    priority = 0
    weight   = 100
    port     = 389
    target   = "dc1.example.org"
  }
}
