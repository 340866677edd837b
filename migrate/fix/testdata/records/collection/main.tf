variable "zone_id" {
  type = string
}

locals {
  services = {
    sip  = { name = "_sip._tcp", service = "_sip", port = 5060 }
    ldap = { name = "_ldap._tcp", service = "_ldap", port = 389 }
  }
}

resource "cloudflare_record" "services" {
  for_each = local.services
  zone_id  = var.zone_id
  name     = each.value.name
  type     = "SRV"

  data {
    service  = each.value.service
    proto    = "_tcp"
    name     = "@"
    priority = 0
    weight   = 5
    port     = each.value.port
    target   = "host.example.org"
  }
}
