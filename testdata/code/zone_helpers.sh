#!/usr/bin/env bash
# The request helper lives in a library the repository sources (not checked here).
source ./lib.sh

cf_request GET "zones/$zone/rate_limits" # want: rate-limiting-v1
cf_api POST "/firewall/rules" --data @rules.json # want: firewall-rules
zone_get "/filters" # want: filters
