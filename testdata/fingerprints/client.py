import requests

API = "https://api.cloudflare.com/client/v4"


def list_rules(zone_id, token):
    url = API + "/zones/" + zone_id + "/firewall/rules"
    return requests.get(url, headers={"Authorization": "Bearer " + token})


def delete_limit(zone_id, limit_id, token):
    return requests.delete(f"{API}/zones/{zone_id}/rate_limits/{limit_id}", headers={"Authorization": "Bearer " + token})


def bulk_settings(zone_id):
    return requests.patch("https://api.cloudflare.com/client/v4/zones/%s/settings" % zone_id, json={"items": []})
