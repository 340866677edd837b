<?php
// An asset pipeline: methods named like a wrapper's, no Cloudflare package imported.
use MatthiasMullie\Minify;

$css = new Minify\CSS($path);
$css->minify($out);
$pipeline->change_minify(true);
$client->zones()->filters()->create($zoneId, []);
