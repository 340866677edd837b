require "cloudflare_client"

# Clients of zendesk's cloudflare_client, one per API.
def clients(zone_id, key, email)
  auth = { zone_id: zone_id, auth_key: key, email: email }
  limits = CloudflareClient::Zone::RateLimit.new(**auth).list # want: rate-limiting-v1
  packages = CloudflareClient::Zone::Firewall::WAFPackage.new(**auth).list # want: waf-managed-rules-v1
  dns = CloudflareClient::Zone::DNS.new(**auth).list
  [limits, packages, dns]
end
