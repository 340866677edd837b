defmodule Acme.Cloudflare.Filters do
  @moduledoc "The zone's filters, through the API client."

  use Tesla

  plug Tesla.Middleware.BaseUrl, "https://api.cloudflare.com/client/v4"

  def list(zone_id), do: get("/zones/#{zone_id}/filters") # want: filters

  def delete_rule(zone_id, id) do
    delete("zones/" <> zone_id <> "/firewall/rules/" <> id) # want: firewall-rules
  end

  def tunnels(account_id), do: get(Path.join(["accounts", account_id, "cfd_tunnel"]))
end
