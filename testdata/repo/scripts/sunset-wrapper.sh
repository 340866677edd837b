#!/bin/sh
# sunset: 1 error, 0 warnings, 0 notices. Not a report: our wrapper around sunset, which it
# must still check (it names sunset and its outputs, and calls a deprecated endpoint).
sunset check --format json:reports/last-check.txt --write-baseline .sunset-baseline.json .
curl -X GET "https://api.example.com/client/v4/zones/$ZONE_ID/rate_limits/$ID"
