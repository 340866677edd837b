import CloudFlare


def main(zone_id):
    cf = CloudFlare.CloudFlare()
    rules = cf.zones.firewall.rules.get(zone_id)  # want: firewall-rules
    for rule in rules:
        cf.zones.filters.delete(zone_id, rule["filter"]["id"])  # want: filters
    settings = cf.zones.settings.get(zone_id)  # want: zone-settings-bulk
    cf.zones.settings.brotli.patch(zone_id, data={"value": "off"})  # want: zone-setting-brotli
    cf.zones.dns_records.get(zone_id)
    return settings


def bulk(zone_id):
    cf = CloudFlare.CloudFlare()
    cf.zones.settings.patch(zone_id, data={"items": [  # want: zone-settings-bulk
        {"id": "brotli", "value": "on"},  # want: zone-setting-brotli
        {"id": "always_online", "value": "on"},
    ]})
