<?php
// jamesryanbell/cloudflare: one method per zone setting.
use Cloudflare\Zone\Settings;
use Cloudflare\Zone\Dns;

$settings = new Settings($client);
$settings->change_minify($zone, ['css' => 'on', 'html' => 'on', 'js' => 'on']); // want: zone-setting-minify
$current = $settings->mobile_redirect($zone); // want: zone-setting-mobile-redirect
$settings->change_server_side_exclude($zone, 'off'); // want: zone-setting-server-side-exclude
$settings->change_ssl($zone, 'strict');
(new Dns($client))->list_records($zone);
