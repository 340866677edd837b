#!/usr/bin/env bash
# Zone settings written through the project's own helper, defined in a library this script
# sources (not checked here).
source "$(dirname "$0")/cf-lib.sh"

for zone in $ZONES; do
  set_setting "$zone" "always_use_https" "on"
  set_setting "$zone" "minify" '{"css":"off","html":"off","js":"off"}' # want: zone-setting-minify
  set_setting "$zone" brotli on # want: zone-setting-brotli
done
