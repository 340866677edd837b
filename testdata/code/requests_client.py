import os

import requests

BASE = "https://api.cloudflare.com/client/v4"
TOKEN = os.environ["CF_API_TOKEN"]


def headers():
    return {"Authorization": "Bearer " + TOKEN}


def firewall_rules(zone_id):
    return requests.get(f"{BASE}/zones/{zone_id}/firewall/rules", headers=headers())  # want: firewall-rules


def delete_filter(zone_id, filter_id):
    url = BASE + "/zones/" + zone_id + "/filters/" + filter_id  # want: filters
    return requests.delete(url, headers=headers())


def rate_limits(zone_id):
    return requests.get("%s/zones/%s/rate_limits" % (BASE, zone_id), headers=headers())  # want: rate-limiting-v1


def minify(zone_id, on):
    path = "/zones/{}/settings/minify".format(zone_id)  # want: zone-setting-minify
    return requests.patch(BASE + path, json={"value": {"css": on}})


def records(zone_id):
    result = requests.get(f"{BASE}/zones/{zone_id}/dns_records").json()
    return result.get("filters"), result.get("organizations")
