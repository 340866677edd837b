from cloudflare import Cloudflare

client = Cloudflare()


def old(zone_id):
    limits = client.rate_limits.list(zone_id=zone_id)  # want: rate-limiting-v1
    packages = client.firewall.waf.packages.list(zone_id=zone_id)  # want: waf-managed-rules-v1
    setting = client.zones.settings.get("mobile_redirect", zone_id=zone_id)  # want: zone-setting-mobile-redirect
    rulesets = client.rulesets.list(zone_id=zone_id)
    return limits, packages, setting, rulesets
