#!/bin/sh
set -eu
curl -s -X POST "https://api.cloudflare.com/client/v4/zones/$ZONE_ID/filters" \
  -H "Authorization: Bearer $CF_API_TOKEN" \
  --data '[{"expression": "ip.geoip.country eq \"XX\""}]'
curl -s "https://api.cloudflare.com/client/v4/zones/$ZONE_ID/settings/brotli"
curl -s -X PATCH "https://api.cloudflare.com/client/v4/zones/${ZONE_ID}/settings/minify" --data '{"value":{"css":"on"}}'
