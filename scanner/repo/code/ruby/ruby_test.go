package ruby

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

// TestRead checks what the reader makes of each case: lexkit.Describe lines, and where
// things stand when a case says.
func TestRead(t *testing.T) {
	readertest.Table(t, Read, "ruby", cases)
}

var cases = []readertest.Named{
	{Name: "client class", Src: `# frozen_string_literal: true
require 'faraday'
require_relative "cloudflare/version"

module Cloudflare
  class Zones < Resource
    BASE = "zones"

    def initialize(client, zone_id)
      @client = client
      @zone_id = zone_id
    end

    def filters(page = 1)
      @client.get("#{BASE}/#{@zone_id}/filters", page: page)
    end

    def create_rule(expression)
      client.post "zones/#{zone_id}/firewall/rules", { filter: { expression: expression }, action: "block" }
    end

    def delete(id)
      conn.delete("zones/" + @zone_id + "/rate_limits/" + id) do |req|
        req.headers['X-Auth'] = token
      end
    end

    def settings = client.get("zones/#{zone_id}/settings")
  end
end
`, Want: []string{
		`import faraday`,
		`import cloudflare/version`,
		`import Cloudflare`,
		`import Zones`,
		`import Resource`,
		`decl initialize`,
		`decl filters`,
		`decl create_rule`,
		`decl delete`,
		`decl settings`,
		`str 2:9 "faraday" call=0 arg=0`,
		`str 3:18 "cloudflare/version" call=1 arg=0`,
		`str 7:12 "zones" as=BASE`,
		`str 15:19 "zones/\x00/filters" call=2 arg=0 holes=zone_id`,
		`str 19:19 "zones/\x00/firewall/rules" call=3 arg=0 holes=zone_id`,
		`str 19:100 "block" key=action call=3`,
		`str 23:19 "zones/\x00/rate_limits/\x00" call=4 arg=0 holes=zone_id,id`,
		`str 24:21 "X-Auth"`,
		`str 28:31 "zones/\x00/settings" call=5 arg=0 holes=zone_id`,
		`call 2:1 require`,
		`call 3:1 require_relative`,
		`call 15:15 client.get args=,page keys=page@0`,
		`call 19:14 client.post args=, keys=filter@0,expression@1,action@0`,
		`call 23:12 conn.delete`,
		`call 28:27 client.get`,
	}},
	{Name: "blocks keys formats and joins", Src: `=begin
"not code"
=end
conn = Faraday.new(url: "https://api.cloudflare.com/client/v4") do |f|
  f.request :json
end
resp = conn.post("zones/#{zone}/filters") do |req|
  req.body = [{ "expression" => "ip.src eq 1.2.3.4", :paused => false }]
end
api.request(method: :post, path: "zones/%s/rate_limits" % zone_id)
api.request method: :put, path: format("accounts/%s/tunnels/%s", account, tunnel_id)
path = File.join("zones", zone_id, "/settings/", "minify")
url = URI.join(BASE_URL, "zones")
Cloudflare::Zone.new(zone_id, token: "x").update(settings: %w[waf minify])
body = <<~JSON
  {"expression": "#{expr}",
    "action": "block"}
JSON
s = "zones/" << id << "/dns_records"
t = "%s/pagerules" % [zone]
puts "a#@zone b" if x =~ /zones\/[a-f0-9]+/
while running do
  tick "x"
end
v = 'single #{not}' 'adjacent'
__END__
"after end"
`, Want: []string{
		`str 4:25 "https://api.cloudflare.com/client/v4" key=url call=0 arg=0`,
		`str 7:18 "zones/\x00/filters" call=2 arg=0 holes=zone`,
		`str 8:33 "ip.src eq 1.2.3.4" key=expression`,
		`str 10:21 "post" key=method call=3 arg=0`,
		`str 10:34 "zones/\x00/rate_limits" key=path call=3 arg=1 holes=zone_id`,
		`str 11:21 "put" key=method call=4 arg=0`,
		`str 11:40 "accounts/\x00/tunnels/\x00" key=path call=4 arg=1 holes=account,tunnel_id`,
		`str 12:18 "zones/\x00/settings/minify" as=path holes=zone_id`,
		`str 13:16 "\x00/zones" as=url holes=BASE_URL`,
		`str 14:38 "x" key=token call=8 arg=1`,
		`str 14:63 "waf" key=settings call=9`,
		`str 14:67 "minify" key=settings call=9`,
		`str 15:8 "{\"expression\": \"\x00\",\n  \"action\": \"block\"}\n" as=body holes=expr`,
		`str 19:5 "zones/\x00/dns_records" as=s holes=id`,
		`str 20:5 "\x00/pagerules" as=t holes=zone`,
		`str 21:6 "a\x00 b" call=10 arg=0 holes=zone`,
		`str 23:8 "x" call=11 arg=0`,
		`str 25:5 "single #{not}adjacent" as=v`,
		`call 4:16 Faraday.new keys=url@0`,
		`call 5:5 f.request`,
		`call 7:13 conn.post`,
		`call 10:5 api.request args=, keys=method@0,path@0`,
		`call 11:5 api.request args=, keys=method@0,path@0`,
		`call 11:33 format args=,account,tunnel_id`,
		`call 12:13 File.join args=,zone_id,,`,
		`call 13:11 URI.join args=BASE_URL,`,
		`call 14:18 Cloudflare.Zone.new args=zone_id, keys=token@0`,
		`call 14:43 Cloudflare.Zone.new.update keys=settings@0`,
		`call 21:1 puts`,
		`call 23:3 tick`,
	}},
	{Name: "heredocs commands and modifiers", Src: "class << self\n" +
		"  def list; end\n" +
		"end\n" +
		"a = b << c\n" +
		"d = x % 3 / y\n" +
		"e = cond ? \"yes\" : :no\n" +
		"client.post(<<~EOS, <<-'RAW', other)\n" +
		"  zones/#{id}/filters\n" +
		"EOS\n" +
		"    raw #{x}\n" +
		"    RAW\n" +
		"conn.put \"zones/#{zone}/settings/waf\" do |req|\n" +
		"  req.body = { value: \"on\" }\n" +
		"end\n" +
		"expect(client.get \"zones/x\").to eq(\"y\")\n" +
		"return fetch \"accounts/#{a}/tunnels\" unless skip\n" +
		"case kind\n" +
		"when \"a\" then get \"zones/a\"\n" +
		"else post \"zones/b\", id\n" +
		"end\n" +
		"items.each { |i| delete \"zones/#{i}\" }\n" +
		"h = { \"method\" => \"DELETE\", url: \"zones/#{z}/rate_limits\" }\n" +
		"x = 5 if y\n" +
		"sh \"curl -X DELETE https://api.cloudflare.com/client/v4/zones/#{z}/firewall/rules\"\n" +
		"`curl https://example.com/#{path}`\n" +
		"", Want: []string{
		`decl list`,
		`str 6:12 "yes"`,
		`str 7:13 "zones/\x00/filters\n" call=0 arg=0 holes=id`,
		`str 7:21 "    raw #{x}\n" call=0 arg=1`,
		`str 12:10 "zones/\x00/settings/waf" call=1 arg=0 holes=zone`,
		`str 13:23 "on" key=value`,
		`str 15:19 "zones/x" call=3 arg=0`,
		`str 15:36 "y" call=5 arg=0`,
		`str 16:14 "accounts/\x00/tunnels" call=6 arg=0 holes=a`,
		`str 18:6 "a"`,
		`str 18:19 "zones/a" call=7 arg=0`,
		`str 19:11 "zones/b" call=8 arg=0`,
		`str 21:25 "zones/\x00" call=9 arg=0 holes=i`,
		`str 22:19 "DELETE" key=method`,
		`str 22:34 "zones/\x00/rate_limits" key=url holes=z`,
		`str 24:4 "curl -X DELETE https://api.cloudflare.com/client/v4/zones/\x00/firewall/rules" call=10 arg=0 holes=z`,
		`str 25:1 "curl https://example.com/\x00" holes=path`,
		`call 7:8 client.post args=,,other`,
		`call 12:6 conn.put`,
		`call 15:1 expect`,
		`call 15:15 client.get`,
		`call 15:30 expect.to`,
		`call 15:33 eq`,
		`call 16:8 fetch`,
		`call 18:15 get`,
		`call 19:6 post args=,id`,
		`call 21:18 delete`,
		`call 24:1 sh`,
	}},
}
