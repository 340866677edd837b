defmodule Cloudflare.Organization do
  use Restlax.Resource,
    endpoint: "organizations", # want: organizations-api
    only: [:show]
end
