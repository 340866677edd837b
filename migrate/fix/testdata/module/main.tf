module "waf_shop" {
  source  = "./modules/waf"
  zone_id = "9a7806061c88ada191ed06f989cc3dac"
  rules = {
    "01-block-bots" = {
      expression  = "(not cf.client.bot and http.user_agent contains \"curl\")"
      action      = "block"
      priority    = 10
      description = "curl without being a known bot"
    }
    "02-allow-monitoring" = {
      expression = "ip.src eq 192.0.2.10"
      action     = "allow"
      priority   = 1
    }
    "03-geo" = {
      expression = "ip.geoip.country in {\"KP\" \"IR\"}"
      action     = "js_challenge"
    }
  }
}
