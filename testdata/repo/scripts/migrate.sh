#!/bin/sh
# Old scripts that call the API directly.
API="https://api.example.com/client/v4"

curl -s -X GET "$API/zones/$ZONE_ID/firewall/rules" -H "Authorization: Bearer $TOKEN"
curl -s -X POST "$API/zones/${ZONE_ID}/filters" \
  -H "Content-Type: application/json" \
  --data '[{"expression": "ip.src eq 192.0.2.1"}]'
curl -s "$API/zones/$ZONE_ID/rate_limits/372e67954025e0ba6aaa6d586b9e0b59"
curl -s -X PATCH "$API/zones/$ZONE_ID/settings/cname_flattening" --data '{"value":"flatten_at_root"}'
curl -s "$API/zones/$ZONE_ID/dns_settings/use_apex_ns"
curl -s "$API/zones/023e105f4ecef8ad9ca31a8372d0c353/script_monitor/scripts"
curl -s -X POST "$API/accounts/$ACCOUNT_ID/images/v1/direct_upload"
curl -s "$API/organizations/$ORG_ID/members"
curl -s "$API/user/billing/profile"
curl -s "$API/zones/$ZONE_ID/analytics/dashboard?since=-1440"
curl -s -X POST "$API/zones/$ZONE_ID/settings/minify" # sunset:ignore zone-setting-minify wrong method, not a call
curl -s -X PUT "$API/zones/$ZONE_ID/firewall/waf/overrides/$OVERRIDE_ID" --data @override.json
curl -s -X POST "$API/zones/$ZONE_ID/dns_records" \
  -H "Transfer-Encoding: chunked" \
  -H "Content-Length: 120" \
  --data @record.json
