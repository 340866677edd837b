require "net/http"

module Edge
  def self.waf_overrides(zone_id)
    Net::HTTP.get(URI("https://api.cloudflare.com/client/v4/zones/#{zone_id}/firewall/waf/overrides"))
  end
end
