<?php
use Cloudflare\API\Endpoints\ZoneSettings;

$zoneSettings = new ZoneSettings($adapter);
if ($zoneSettings->getBrotliSetting($zoneId) === 'on') { // want: zone-setting-brotli
    $zoneSettings->updateBrotliSetting($zoneId, 'off'); // want: zone-setting-brotli
}
$zoneSettings->updateHTTP3Setting($zoneId, 'on');
