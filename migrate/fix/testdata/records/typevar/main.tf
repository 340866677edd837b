# A service record module: the record's type and parts come from its callers.
variable "zone_id" {
  type = string
}

variable "name" {
  type = string
}

variable "type" {
  type = string
}

variable "service_type" {
  type = string
}

variable "service_protocol" {
  type = string
}

variable "service_name" {
  type = string
}

variable "service_port" {
  type = number
}

variable "service_target" {
  type = string
}

resource "cloudflare_record" "service" {
  zone_id = var.zone_id
  name    = var.name
  type    = var.type
  ttl     = 3600

  data {
    service  = var.service_type
    proto    = var.service_protocol
    name     = var.service_name
    priority = 10
    weight   = 5
    port     = var.service_port
    target   = var.service_target
  }
}

variable "sip_type" {
  type    = string
  default = "SRV"
}

resource "cloudflare_record" "sip" {
  zone_id = var.zone_id
  name    = "_sip._tcp"
  type    = var.sip_type

  data {
    service  = "_sip"
    proto    = "_tcp"
    name     = "@"
    priority = 10
    weight   = 5
    port     = 5060
    target   = "sip.example.org"
  }
}

# The fields say _xmpp-server, the name says _xmpp-client: someone has to decide.
resource "cloudflare_record" "xmpp" {
  zone_id = var.zone_id
  name    = "_xmpp-client._tcp"
  type    = var.sip_type

  data {
    service  = "_xmpp-server"
    proto    = "_tcp"
    name     = "@"
    priority = 5
    weight   = 0
    port     = 5269
    target   = "chat.example.org"
  }
}
