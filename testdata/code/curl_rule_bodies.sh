#!/usr/bin/env bash
# Rules sent with curl, their bodies written out in the script.
API="https://api.cloudflare.com/client/v4/zones/${ZONE_ID}"

curl -s -X POST "$API/firewall/rules" -H "Content-Type: application/json" --data '[
  {"filter": {"expression": "(cf.threat_score gt 14)"}, "action": "challenge", "description": "threat"},
  {"filter": {"expression": "(ip.geoip.country eq \"T1\")"}, "action": "block"}
]' # want-3: firewall-rules # want-2: threat-score-field # want-1: geoip-field-names

curl -s -X PUT "$API/rulesets/phases/http_request_firewall_custom/entrypoint" \
  --data '{"rules": [{"expression": "cf.threat_score gt 10", "action": "block"}]}' # want: threat-score-field

curl -s -X POST "$API/rulesets" --data "{\"rules\": [{\"expression\": \"ip.src eq $BAD_IP or cf.threat_score gt 50\", \"action\": \"block\"}]}" # want: threat-score-field

# Not an expression: a field named in a description, a JSON body with no rules.
curl -s -X PATCH "$API/settings/ssl" --data '{"value": "strict", "note": "was cf.threat_score based"}'
