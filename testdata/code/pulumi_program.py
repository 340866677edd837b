import pulumi
import pulumi_cloudflare as cloudflare

config = pulumi.Config()
zone_id = config.require("zoneId")

block = cloudflare.FirewallRule(  # want: firewall-rules
    "block",
    zone_id=zone_id,
    action="block",
    filter_id=config.require("filterId"),
)

ruleset = cloudflare.Ruleset(
    "custom",
    zone_id=zone_id,
    kind="zone",
    phase="http_request_firewall_custom",
    rules=[
        cloudflare.RulesetRuleArgs(
            action="block",
            expression='(ip.geoip.country in {"XX" "YY"})',  # want: geoip-field-names
        )
    ],
)
