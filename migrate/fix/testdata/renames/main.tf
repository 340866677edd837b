variable "account_id" {
  type    = string
  default = "3c59dc048e8850243be8079a5c74d079"
}

variable "tunnel_secret" {
  type      = string
  sensitive = true
}

resource "cloudflare_argo_tunnel" "home" {
  account_id = var.account_id
  name       = "home-lab"
  secret     = var.tunnel_secret
}

resource "cloudflare_record" "grafana" {
  zone_id = "6512bd43d9caa6e02c990b0a82652dca"
  name    = "grafana"
  type    = "CNAME"
  value   = "${cloudflare_argo_tunnel.home.id}.cfargotunnel.com"
  proxied = true
}

resource "cloudflare_access_bookmark" "wiki" {
  account_id           = var.account_id
  name                 = "Team wiki"
  domain               = "wiki.example.com"
  app_launcher_visible = true
}

resource "cloudflare_record" "ssh" {
  zone_id = "6512bd43d9caa6e02c990b0a82652dca"
  name    = "ssh"
  type    = "CNAME"
  value   = cloudflare_argo_tunnel.home.cname
  proxied = true
}

output "tunnel_cname" {
  value = "tunnel at ${cloudflare_argo_tunnel.home.cname}"
}

output "tunnel_token" {
  value     = cloudflare_argo_tunnel.home.tunnel_token
  sensitive = true
}

output "wiki_app" {
  value = cloudflare_access_bookmark.wiki.id
}
