import requests

API = "https://api.cloudflare.com/client/v4"


def add_sip(zone_id, token, target):
    record = {
        "type": "SRV",
        "name": "_sip._tcp.example.com",
        "data": {
            "service": "_sip",  # want: srv-data-fields
            "proto": "_tcp",  # want: srv-data-fields
            "name": "example.com",  # want: srv-data-fields
            "priority": 10,
            "weight": 5,
            "port": 5060,
            "target": target,
        },
    }
    requests.post(f"{API}/zones/{zone_id}/dns_records", json=record, headers={"Authorization": token})


def add_xmpp(zone_id, target):
    # The record as the API takes it now: no service, proto or name in data.
    record = {"type": "SRV", "name": "_xmpp._tcp.example.com",
              "data": {"priority": 0, "weight": 5, "port": 5269, "target": target}}
    requests.post(f"{API}/zones/{zone_id}/dns_records", json=record)


def add_a(zone_id):
    record = {"type": "A", "name": "www", "data": {"name": "unused"}, "content": "192.0.2.1"}
    requests.post(f"{API}/zones/{zone_id}/dns_records", json=record)
