require "faraday"

module Edge
  API = "https://api.cloudflare.com/client/v4".freeze

  def self.conn
    Faraday.new(url: API, headers: { "Authorization" => "Bearer #{ENV.fetch("CF_API_TOKEN")}" })
  end

  def self.filters(zone_id)
    conn.get("zones/#{zone_id}/filters") # want: filters
  end

  def self.lockdowns(zone_id)
    conn.get "zones/#{zone_id}/firewall/lockdowns"
  end

  def self.bookmarks(account_id)
    conn.delete(File.join("accounts", account_id, "access", "bookmarks", "b1")) # want: access-bookmarks-api
  end
end
