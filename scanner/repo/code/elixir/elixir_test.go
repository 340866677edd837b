package elixir

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// TestRead checks what the reader makes of each case: lexkit.Describe lines, and where
// things stand when a case says.
func TestRead(t *testing.T) {
	readertest.Table(t, Read, "elixir", cases)
}

var cases = []readertest.Named{
	{Name: "resource module", Src: `defmodule Cloudflare.Filter do
  use Cloudflare.Doc, "filters"

  use Restlax.Resource,
    endpoint: "zones/:zone_id/filters",
    only: [:show, :create, :update, :delete]

  alias Cloudflare.{Client, Zone.Settings}
  import Logger, only: [info: 1]

  @moduledoc false
  @endpoint "zones/:zone_id/rate_limits"

  @doc """
  Lists all filters in a zone.
  """
  def index(opts \\ []) do
    client(opts).get(
      path_for(nil),
      Restlax.Resource.handle_options(opts)
    )
  end

  def bulk_delete(body, opts \\ []) do
    client(opts).delete(
      path_for(nil),
      Restlax.Resource.handle_options(opts) |> Keyword.put(:body, body)
    )
  end

  defp url(zone_id), do: "zones/" <> zone_id <> "/firewall/rules"

  def settings(zone_id) do
    path = Path.join(["zones", zone_id, "settings"])
    Tesla.get(client(), "/zones/#{zone_id}/settings/waf", query: [page: 1])
    Tesla.request(client(), method: :patch, url: @endpoint <> "/x")
    ~s(organizations/#{id}) |> Tesla.get()
    Logger.info "fetched #{path}"
    words = ~w(zones accounts)
    {:ok, 'charlist'} = ~S"raw #{x}"
  end
end
`, Want: []string{
		`import Cloudflare.Filter`,
		`import Cloudflare.Doc`,
		`import Restlax.Resource`,
		`import Cloudflare.Client`,
		`import Cloudflare.Zone.Settings`,
		`import Logger`,
		`decl index`,
		`decl bulk_delete`,
		`decl url`,
		`decl settings`,
		`str 2:23 "filters" call=0 arg=1`,
		`str 5:15 "zones/:zone_id/filters" key=endpoint call=1 arg=1`,
		`str 12:13 "zones/:zone_id/rate_limits" as=endpoint`,
		`str 14:8 "Lists all filters in a zone.\n" as=doc`,
		`str 31:26 "zones/\x00/firewall/rules" holes=zone_id`,
		`str 34:22 "zones/\x00/settings" as=path holes=zone_id`,
		`str 35:25 "/zones/\x00/settings/waf" call=12 arg=1 holes=zone_id`,
		`str 36:37 "patch" key=method call=14 arg=1`,
		`str 36:50 "zones/:zone_id/rate_limits/x" key=url call=14 arg=2`,
		`str 37:5 "organizations/\x00" holes=id`,
		`str 38:17 "fetched \x00" call=17 arg=0 holes=path`,
		`str 39:16 "zones"`,
		`str 39:22 "accounts"`,
		`str 40:11 "charlist"`,
		`str 40:25 "raw #{x}"`,
		`call 2:18 use.Cloudflare.Doc args=,`,
		`call 4:15 use.Restlax.Resource args=,, keys=endpoint@0,only@0`,
		`call 18:5 client args=opts`,
		`call 18:18 client.get args=,`,
		`call 19:7 path_for`,
		`call 20:24 Restlax.Resource.handle_options args=opts`,
		`call 25:5 client args=opts`,
		`call 25:18 client.delete args=,`,
		`call 26:7 path_for`,
		`call 27:24 Restlax.Resource.handle_options args=opts`,
		`call 27:56 Keyword.put args=,body`,
		`call 34:17 Path.join`,
		`call 35:11 Tesla.get args=,, keys=query@0,page@1`,
		`call 35:15 client`,
		`call 36:11 Tesla.request args=,, keys=method@0,url@0`,
		`call 36:19 client`,
		`call 37:38 Tesla.get`,
		`call 38:12 Logger.info`,
	}},
	{Name: "tesla client pipes and maps", Src: `defmodule MyApp.Cloudflare do
  use Tesla
  plug Tesla.Middleware.BaseUrl, "https://api.cloudflare.com/client/v4"
  plug Tesla.Middleware.Headers, [{"authorization", "Bearer " <> token()}]

  # get "/zones/:id" is a comment
  def rules(zone_id) do
    "zones/#{zone_id}/firewall/rules"
    |> get(query: %{"per_page" => 50, page: 1})
    |> case do
      {:ok, %Tesla.Env{status: 200, body: body}} -> body
      _ -> nil
    end
  end

  def pause(zone_id, id),
    do: patch("zones/#{zone_id}/firewall/rules/#{id}", %{paused: true, "description": "x"})

  def list_all(zone_id) do
    Enum.map(1..3, fn page -> get!("zones/" <> zone_id <> "/filters", query: [page: page]) end)
    |> Enum.flat_map(& &1.body)
  end

  def doc do
    """
      indented
    line #{x}
    """
  end

  defp token, do: System.get_env("CF_TOKEN") |> String.trim
  def x, do: :"quoted atom" && ?a && :+ && request(method: :"delete", url: ~c"zones")
end
`, Want: []string{
		`import MyApp.Cloudflare`,
		`import Tesla`,
		`decl rules`,
		`decl pause`,
		`decl list_all`,
		`decl doc`,
		`decl token`,
		`decl x`,
		`str 3:34 "https://api.cloudflare.com/client/v4" call=1 arg=1`,
		`str 4:36 "authorization" call=2`,
		`str 4:53 "Bearer \x00" call=2`,
		`str 8:5 "zones/\x00/firewall/rules" holes=zone_id`,
		`str 17:15 "zones/\x00/firewall/rules/\x00" call=5 arg=0 holes=zone_id,id`,
		`str 17:87 "x" key=description call=5`,
		`str 20:36 "zones/\x00/filters" call=7 arg=0 holes=zone_id`,
		`str 25:5 "  indented\nline \x00\n" holes=x`,
		`str 31:34 "CF_TOKEN" call=9 arg=0`,
		`str 32:60 "delete" key=method call=11 arg=0`,
		`str 32:76 "zones" key=url call=11 arg=1`,
		`call 2:7 use.Tesla args=Tesla`,
		`call 3:3 plug args=,`,
		`call 4:3 plug args=,`,
		`call 4:66 token`,
		`call 9:8 get keys=query@0,per_page@1,page@1`,
		`call 17:9 patch args=, keys=paused@0,description@0`,
		`call 20:10 Enum.map args=,`,
		`call 20:31 get! args=, keys=query@0,page@1`,
		`call 21:13 Enum.flat_map`,
		`call 31:26 System.get_env`,
		`call 31:56 String.trim`,
		`call 32:44 request args=, keys=method@0,url@0`,
	}},
	{Name: "attributes joins and variables", Src: `defmodule Api do
  @base "https://api.cloudflare.com/client/v4"
  @endpoint @base <> "/zones"

  def get_filters(client, zone_id) do
    path = "zones/" <> zone_id
    Tesla.get(client, path <> "/filters")
    Tesla.get(client, "/x")
    Path.join(@endpoint, zone_id) |> Foo.bar()
    url = Path.join("accounts", account_id) <> "/tunnels"
    HTTPoison.delete!(url, [{"X-Auth-Key", key}])
  end
end
`, Want: []string{
		`import Api`,
		`decl get_filters`,
		`str 2:9 "https://api.cloudflare.com/client/v4" as=base`,
		`str 3:13 "https://api.cloudflare.com/client/v4/zones" as=endpoint`,
		`str 6:12 "zones/\x00" as=path holes=zone_id`,
		`str 7:23 "zones/\x00/filters" call=0 arg=1 holes=zone_id`,
		`str 8:23 "/x" call=1 arg=1`,
		`str 9:15 "\x00/\x00" holes=endpoint,zone_id`,
		`str 10:11 "\x00/tunnels" as=url`,
		`str 10:21 "accounts/\x00" holes=account_id`,
		`str 11:30 "X-Auth-Key" call=5`,
		`call 7:11 Tesla.get args=client,`,
		`call 8:11 Tesla.get args=client,`,
		`call 9:10 Path.join args=endpoint,zone_id`,
		`call 9:42 Foo.bar`,
		`call 10:16 Path.join args=,account_id`,
		`call 11:15 HTTPoison.delete! args=url,`,
	}},
	{Name: "use over two lines", Src: "x = \"é\"; use Restlax.Resource,\n  endpoint: \"zones/:zone_id/filters\"\nfoo()\n",
		Want: []string{
			`import Restlax.Resource`,
			`str 1:5 "é" as=x`,
			`str 2:13 "zones/:zone_id/filters" key=endpoint call=0 arg=1`,
			`call 1:22 use.Restlax.Resource args=, keys=endpoint@0`,
			`call 3:1 foo`,
		},
		Spans: []string{
			`call use.Restlax.Resource 1:22-2:36 keys=endpoint@2:3`,
			`call foo 3:1-3:5`,
			`str "é" 1:5-1:7`,
			`str "zones/:zone_id/filters" 2:13-2:36 key=endpoint`,
		}},
}
