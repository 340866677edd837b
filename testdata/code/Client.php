<?php

namespace Acme\Edge;

use Cloudflare\API\Adapter\Guzzle;
use Cloudflare\API\Endpoints\Firewall;
use Cloudflare\API\Endpoints\ZoneSettings;

final class Edge
{
    public function __construct(private Guzzle $adapter, private string $zoneId)
    {
    }

    public function rules(): array
    {
        $firewall = new Firewall($this->adapter);
        return $firewall->listFirewallRules($this->zoneId); // want: firewall-rules
    }

    public function minify(): object
    {
        return (new ZoneSettings($this->adapter))->getMinifySetting($this->zoneId); // want: zone-setting-minify
    }

    public function limits(): object
    {
        return $this->adapter->get('zones/' . $this->zoneId . '/rate_limits'); // want: rate-limiting-v1
    }

    public function override(string $id): object
    {
        return $this->adapter->put("zones/{$this->zoneId}/firewall/waf/overrides/{$id}", []); // want: waf-managed-rules-v1
    }
}
