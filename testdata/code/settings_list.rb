require "net/http"
require "json"

# A tool that writes the zone settings it knows, one request per setting.
module ZoneSettingsTool
  API = "https://api.cloudflare.com/client/v4".freeze

  # The settings this tool accepts on its command line.
  ACCEPTED = %w[
    always_use_https
    minify
    mobile_redirect
    ssl
  ].freeze # want-3: zone-setting-minify # want-2: zone-setting-mobile-redirect

  LEGACY = ["brotli", "tls_1_3"].freeze # want: zone-setting-brotli

  def self.write(zone_id, name, value)
    raise ArgumentError, "unknown setting #{name}" unless ACCEPTED.include?(name)

    uri = URI("#{API}/zones/#{zone_id}/settings/#{name}")
    req = Net::HTTP::Patch.new(uri, "Content-Type" => "application/json")
    req.body = JSON.generate(value: value)
    Net::HTTP.start(uri.host, uri.port, use_ssl: true) { |http| http.request(req) }
  end
end
