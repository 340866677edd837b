package ruby

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// BenchmarkRead reads a generated Ruby file of about 1 MB.
func BenchmarkRead(b *testing.B) {
	readertest.Bench(b, Read, readertest.Repeat(1<<20, "# frozen_string_literal: true\n\nrequire \"faraday\"\n\nmodule Cloudflare\n", `  # Rules of a zone, page by page.
  class Rules%[1]d < Resource
    PATH = "firewall/rules"

    def initialize(client, zone_id)
      @client = client
      @zone_id = zone_id
    end

    def list(page: 1, per_page: 50)
      @client.get("zones/#{@zone_id}/#{PATH}", page: page, per_page: per_page)
    end

    def update(id, attributes)
      raise ArgumentError, "no id" if id.nil?
      @client.put "zones/" + @zone_id + "/#{PATH}/" + id, attributes.merge(paused: false) do |req|
        req.headers["Content-Type"] = "application/json"
      end
    end
  end

`, "end\n"))
}
