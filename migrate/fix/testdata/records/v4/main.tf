resource "cloudflare_zone" "corp" {
  account_id = "d41d8cd98f00b204e9800998ecf8427e"
  zone       = "corp.example.net"
}

resource "cloudflare_record" "sip" {
  zone_id = cloudflare_zone.corp.id
  name    = "_sip._tcp"
  type    = "SRV"

  data {
    service  = "_sip"
    proto    = "_tcp"
    name     = "corp.example.net"
    priority = 10
    weight   = 5
    port     = 5060
    target   = "sip.corp.example.net"
  }
}

# The fields say _xmpp-server, the name says _xmpp-client: someone has to decide.
resource "cloudflare_record" "xmpp" {
  zone_id = cloudflare_zone.corp.id
  name    = "_xmpp-client._tcp"
  type    = "SRV"

  data {
    service  = "_xmpp-server"
    proto    = "_tcp"
    name     = "@"
    priority = 5
    weight   = 0
    port     = 5269
    target   = "chat.corp.example.net"
  }
}

resource "cloudflare_record" "www" {
  zone_id = cloudflare_zone.corp.id
  name    = "www"
  type    = "A"
  value   = "198.51.100.7"
}

resource "cloudflare_load_balancer_pool" "web" {
  account_id         = "d41d8cd98f00b204e9800998ecf8427e"
  name               = "web"
  notification_email = "noc@corp.example.net,oncall@corp.example.net"
  minimum_origins    = 1

  origins {
    name    = "web-1"
    address = "198.51.100.7"
  }
}
