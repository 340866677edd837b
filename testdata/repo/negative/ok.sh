#!/bin/sh
API="https://api.example.com/client/v4"
curl -s "$API/zones/$ZONE_ID/rulesets/phases/http_request_firewall_custom/entrypoint"
curl -s -X PATCH "$API/zones/$ZONE_ID/dns_settings" --data '{"flatten_all_cnames": true}'
curl -s -X PATCH "$API/zones/$ZONE_ID/settings/always_use_https" --data '{"value":"on"}'
curl -s "$API/zones/$ZONE_ID/page_shield/scripts"
curl -s -X POST "$API/accounts/$ACCOUNT_ID/images/v2/direct_upload"
curl -s "$API/accounts/$ACCOUNT_ID/cfd_tunnel"
curl -s -X GET "$API/zones/$ZONE_ID/dns_records"
curl -s -X GET "$API/accounts/$ACCOUNT_ID/images/v1/direct_upload"
echo "dns_zones/firewall/rules is a local directory name"
