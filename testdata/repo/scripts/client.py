import requests

BASE = "https://api.example.com/client/v4"


def list_rules(zone_id):
    return requests.get(f"{BASE}/zones/{zone_id}/firewall/rules").json()


def tunnels(account_id):
    return requests.get(f"{BASE}/accounts/{account_id}/tunnels").json()


def settings(zone_id):
    # The bulk settings endpoint.
    return requests.patch(f"{BASE}/zones/{zone_id}/settings", json={"items": []})
