<?php
// sergkeim/php-cloudflare-api: endpoints reached through the client's accessors.
use Cloudflare\Client;

$client = new Client(getenv('CF_API_TOKEN'));
$zoneId = getenv('CF_ZONE_ID');

$rules = $client->zones()->firewallRules()->list($zoneId); // want: firewall-rules
$client->zones()->filters()->create($zoneId, [['expression' => 'ip.src eq 192.0.2.1']]); // want: filters
$client->zones()->rateLimits()->delete($zoneId, $rules[0]['id']); // want: rate-limiting-v1
$client->zones()->settings()->edit($zoneId, 'brotli', ['value' => 'off']); // want: zone-setting-brotli
$client->zones()->settings()->edit($zoneId, 'always_use_https', ['value' => 'on']);
$client->zones()->rulesets()->list($zoneId);
