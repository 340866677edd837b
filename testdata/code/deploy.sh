#!/usr/bin/env bash
set -euo pipefail
BASE="https://api.cloudflare.com/client/v4/zones/${ZONE_ID}"

curl -sf -X POST \
  "$BASE/firewall/rules" \
  -H "Authorization: Bearer $CF_API_TOKEN" \
  --data @rules.json # want-2: firewall-rules

curl -sf -X PATCH "$BASE"/settings/mobile_redirect --data '{"value":{"status":"off"}}' # want: zone-setting-mobile-redirect

for id in $(jq -r '.[].id' limits.json); do
  curl -sf -X DELETE "$BASE/rate_limits/$id" # want: rate-limiting-v1
done

curl -sf "$BASE/dns_records?type=SRV"
