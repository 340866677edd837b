package elixir

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// BenchmarkRead reads a generated Elixir file of about 1 MB.
func BenchmarkRead(b *testing.B) {
	readertest.Bench(b, Read, readertest.Repeat(1<<20, "", `defmodule Cloudflare.Resource%[1]d do
  use Restlax.Resource,
    endpoint: "zones/:zone_id/things/%[1]d",
    only: [:index, :show, :create, :update, :delete]

  @doc """
  Bulk-updates the things of a zone (PUT collection).
  """
  def bulk_update(body, opts \\ []) do
    client(opts).put(
      path_for(nil),
      body,
      Restlax.Resource.handle_options(opts) |> Keyword.put(:query, page: %[1]d)
    )
  end

  defp path(zone_id), do: "zones/" <> zone_id <> "/things/#{@suffix}"
end

`, ""))
}
