<?php

namespace Acme\Edge;

class Client
{
    public function organization(string $id)
    {
        return $this->http->get("https://api.cloudflare.com/client/v4/organizations/{$id}");
    }

    public function dashboard(string $zone)
    {
        return $this->http->get("https://api.cloudflare.com/client/v4/zones/{$zone}/analytics/dashboard");
    }
}
