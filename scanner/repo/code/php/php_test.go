package php

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
)

var cases = []struct {
	name, src string
	want      []string
}{
	{"client class", `<html><?php
namespace Plients\CloudFlare\API\Zones;
use Plients\CloudFlare\API\AbstractAPI;
use Foo\{Bar, Baz as Q};
require_once __DIR__ . '/vendor/autoload.php';

class RateLimits extends AbstractAPI
{
    public function list(string $zoneIdentifier, array $parameters = []): HttpResponse
    {
        return $this->client->get("zones/{$zoneIdentifier}/rate_limits", $parameters);
    }
    public function x($id) {
        $url = 'zones/' . $id . "/filters";
        $resp = $this->client->request('POST', $url, ['method' => 'POST', 'json' => ['expression' => "ip.src eq $ip"]]);
        $path = sprintf('zones/%s/settings/%s', $zone, $this->setting);
        new \Cloudflare\API\Endpoints\DNS($adapter);
        parent::__construct($x);
        $y = <<<EOT
          zones/$this->zoneId/dns
          x {$a['k']} y
          EOT;
        $z = <<<'EOT'
raw $x
EOT;
        // "comment"
        # 'comment'
        return $url . "/x";
    }
}
?>
<p>"not code"</p>
`, []string{
		`import Plients\CloudFlare\API\Zones`,
		`import Plients\CloudFlare\API\AbstractAPI`,
		`import Foo\Bar`,
		`import Foo\Baz`,
		`import /vendor/autoload.php`,
		`decl list`,
		`decl x`,
		`str 5:14 "\x00/vendor/autoload.php"`,
		`str 11:35 "zones/\x00/rate_limits" call=0 arg=0 holes=zoneIdentifier`,
		`str 14:16 "zones/\x00/filters" as=url holes=id`,
		`str 15:40 "POST" call=1 arg=0`,
		`str 15:67 "POST" key=method call=1`,
		`str 15:102 "ip.src eq \x00" key=expression call=1 holes=ip`,
		`str 16:25 "zones/\x00/settings/\x00" as=path holes=zone,`,
		`str 19:14 "zones/\x00/dns\nx \x00 y" as=y holes=zoneId,k`,
		`str 23:14 "raw $x" as=z`,
		`str 28:17 "zones/\x00/filters/x" holes=id`,
		`call 11:31 this.client.get args=,parameters`,
		`call 15:32 this.client.request args=,url, keys=method@0,json@0,expression@1`,
		`call 16:17 sprintf args=,zone,`,
		`call 17:39 Cloudflare.API.Endpoints.DNS new args=adapter`,
		`call 18:17 parent.__construct args=x`,
	}},
	{"interpolation forms", `<?php
$a = "zones/$this->zoneId/x";
$b = "z/{$this->zone->id}/y/{$params['zone_id']}/{$f()}";
$c = "s/$arr[zone]/t/$arr['k']/u/${name}/v/${ $x . 'y' }";
$d = "\$notvar \{$x} \x41\101\u{1F600} \q";
$e = 'it\'s \n $raw {$raw}';
`, []string{
		`str 2:6 "zones/\x00/x" as=a holes=zoneId`,
		`str 3:6 "z/\x00/y/\x00/\x00" as=b holes=id,zone_id,`,
		`str 4:6 "s/\x00/t/\x00/u/\x00/v/\x00" as=c holes=zone,k,name,`,
		`str 5:6 "$notvar \\{\x00} AA😀 \\q" as=d holes=x`,
		`str 6:6 "it's \\n $raw {$raw}" as=e`,
	}},
	{"concatenation and variables", `<?php
$base = "https://api.cloudflare.com/client/v4/";
function rules($zone) {
    $path = 'zones/' . $zone;
    $path .= '/firewall/rules';
    return $path;
}
$url = $base . "zones/" . $id . '/filters?page=' . 2;
$client->request('DELETE', $url);
$x = $a . $b;
$y = strtolower($zone) . "/settings/" . self::SETTING . PHP_EOL;
$z = ($prefix ?: 'zones') . '/rate_limits';
`, []string{
		`decl rules`,
		`str 2:9 "https://api.cloudflare.com/client/v4/" as=base`,
		`str 4:13 "zones/\x00" as=path holes=zone`,
		`str 5:14 "zones/\x00/firewall/rules" as=path holes=zone`,
		`str 8:9 "https://api.cloudflare.com/client/v4/zones/\x00/filters?page=2" as=url holes=id`,
		`str 9:18 "DELETE" call=0 arg=0`,
		`str 11:6 "\x00/settings/\x00" as=y holes=,SETTING`,
		`str 12:6 "\x00/rate_limits" as=z`,
		`str 12:18 "zones"`,
		`call 9:10 client.request args=,url`,
		`call 11:6 strtolower args=zone`,
	}},
	{"array keys and named arguments", `<?php
$res = $http->post('zones/' . $id . '/filters', [
    'json' => [
        'expression' => '(ip.src eq 1.2.3.4)',
        'paused' => false,
    ],
    'headers' => ['X-Auth-Key' => $key],
]);
$api->call(method: 'PUT', path: "zones/$id/settings/waf", body: $b);
$m = ['url' => 'zones/x', 7 => 'seven'];
foreach ($rows as $k => $v) { echo "$k"; }
`, []string{
		`str 2:20 "zones/\x00/filters" call=0 arg=0 holes=id`,
		`str 4:25 "(ip.src eq 1.2.3.4)" key=expression call=0`,
		`str 9:20 "PUT" key=method call=1 arg=0`,
		`str 9:33 "zones/\x00/settings/waf" key=path call=1 arg=1 holes=id`,
		`str 10:16 "zones/x" key=url`,
		`str 10:32 "seven"`,
		`call 2:15 http.post args=, keys=json@0,expression@1,paused@1,headers@0,X-Auth-Key@1`,
		`call 9:7 api.call args=,,b keys=method@0,path@0,body@0`,
	}},
	{"sprintf verbs", `<?php
$a = sprintf('zones/%s/rate_limits/%d', $zoneId, $id);
$b = vsprintf("accounts/%1\$s/tunnels/%2\$s %% done", [$acc, $t]);
printf("%05.2f%%s %'*10s", $n);
$c = sprintf("%s", $x);
$d = sprintf("{$base}zones/%s", $z);
`, []string{
		`str 2:14 "zones/\x00/rate_limits/\x00" as=a holes=zoneId,id`,
		`str 3:15 "accounts/\x00/tunnels/\x00 % done" as=b holes=,`,
		`str 4:8 "\x00%s \x00" holes=n,`,
		`str 6:14 "\x00zones/\x00" as=d holes=base,z`,
		`call 2:6 sprintf args=,zoneId,id`,
		`call 3:6 vsprintf args=,`,
		`call 4:1 printf args=,n`,
		`call 5:6 sprintf args=,x`,
		`call 6:6 sprintf args=,z`,
	}},
	{"tags and comments", `<p>"zones/x/filters" <?php echo "a"; ?> and 'b' <?= $v ?>
<?php
// "line comment" ?> <b>'html'</b> <?php
# 'hash comment'
/* "block
   comment" */
#[Route('/zones')]
echo 'c'; // trailing
$h = $x#comment
    . "after";
`, []string{
		`str 1:33 "a"`,
		`str 7:9 "/zones" call=0 arg=0`,
		`str 8:6 "c"`,
		`str 9:7 "\x00after" as=h holes=x`,
		`call 7:3 Route`,
	}},
	{"imports constructors static calls", `<?php
use function Foo\bar;
use Cloudflare\API\Adapter\Guzzle, Cloudflare\API\Auth\APIKey as Key;
require 'config.php';
include_once('lib/' . $name . '.php');
$key = new Key\APIKey('user@example.com', $apiKey);
$adapter = new Guzzle($key);
$dns = new \Cloudflare\API\Endpoints\DNS($adapter);
$zones = Cloudflare\API\Endpoints\Zones::create($adapter)->listZones('example.com');
$r = $this->adapter->get('zones/' . $zoneID . '/firewall/waf/packages')->getBody();
$f = function () use ($x) { return strlen("q"); };
$g = fn($x) => $x . "/dns_records";
abstract function nobody();
if (isset($a['k'])) { list($p, $q) = explode("/", $s); }
$obj?->method("nullsafe");
$c = $this->{$name}("dyn");
`, []string{
		`import Foo\bar`,
		`import Cloudflare\API\Adapter\Guzzle`,
		`import Cloudflare\API\Auth\APIKey`,
		`import config.php`,
		`str 4:9 "config.php"`,
		`str 5:14 "lib/\x00.php" holes=name`,
		`str 6:23 "user@example.com" call=0 arg=0`,
		`str 9:70 "example.com" call=4 arg=0`,
		`str 10:26 "zones/\x00/firewall/waf/packages" call=5 arg=0 holes=zoneID`,
		`str 11:43 "q" call=7 arg=0`,
		`str 12:17 "\x00/dns_records" holes=x`,
		`str 14:14 "k"`,
		`str 14:46 "/" call=8 arg=0`,
		`str 15:15 "nullsafe" call=9 arg=0`,
		`str 16:21 "dyn"`,
		`call 6:16 Key.APIKey new args=,apiKey`,
		`call 7:16 Guzzle new args=key`,
		`call 8:38 Cloudflare.API.Endpoints.DNS new args=adapter`,
		`call 9:42 Cloudflare.API.Endpoints.Zones.create args=adapter`,
		`call 9:60 Cloudflare.API.Endpoints.Zones.create.listZones`,
		`call 10:22 this.adapter.get`,
		`call 10:74 this.adapter.get.getBody`,
		`call 11:36 strlen`,
		`call 14:38 explode args=,s`,
		`call 15:8 obj.method`,
	}},
	{"heredoc and nowdoc", `<?php
$a = <<<EOT
    zones/$id/firewall/rules
      {$this->zone}
    EOT;
$b = <<<"EOT"
x $y
EOT . "tail";
$c = <<<'NOW'
  zones/$id/{$raw}
  NOW;
call(<<<EOT
inside
EOT, $two);
`, []string{
		`str 2:6 "zones/\x00/firewall/rules\n  \x00" as=a holes=id,zone`,
		`str 6:6 "x \x00tail" as=b holes=y`,
		`str 9:6 "zones/$id/{$raw}" as=c`,
		`str 12:6 "inside" call=0 arg=0`,
		`call 12:1 call args=,two`,
	}},
}

func TestRead(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			readertest.Case(t, Read, "php", c.src, c.want)
		})
	}
}

// TestPositions checks End positions, key positions and columns counted in characters.
func TestPositions(t *testing.T) {
	src := "<?php\n$é = \"ü\"; $c->get(\"zones/{$id}\",\n  ['method' => 'POST']);\n"
	f := Read([]byte(src))
	if len(f.Strings) != 3 || len(f.Calls) != 1 {
		t.Fatalf("got %q", lexkit.Describe(f))
	}
	s := f.Strings[1]
	if s.Pos != (code.Pos{Line: 2, Col: 19}) || s.End != (code.Pos{Line: 2, Col: 31}) {
		t.Errorf("string at %v-%v", s.Pos, s.End)
	}
	c := f.Calls[0]
	if c.Pos != (code.Pos{Line: 2, Col: 15}) || c.End != (code.Pos{Line: 3, Col: 23}) {
		t.Errorf("call at %v-%v", c.Pos, c.End)
	}
	if len(c.Keys) != 1 || c.Keys[0].Pos != (code.Pos{Line: 3, Col: 4}) {
		t.Errorf("keys %v", c.Keys)
	}
}

// TestBroken checks that unterminated strings, comments and brackets give what was read.
func TestBroken(t *testing.T) {
	readertest.Broken(t, Read, map[string]string{
		"<?php $c->get(\"zones/$id/filters": `str 1:15 "zones/\x00/filters" call=0 arg=0 holes=id|call 1:11 c.get`,
		"<?php $x = 'abc":                   `str 1:12 "abc" as=x`,
		"<?php /* 'abc":                     ``,
		"<?php $a = <<<EOT\nzones/$z\n":     `str 1:12 "zones/\x00\n" as=a holes=z`,
		"<?php f(\"{$a\" . 'b'":             `call 1:7 f`,
		"<?php ) ] } f(]);":                 `call 1:13 f`,
		"":                                  ``,
		"<?php \"":                          ``,
		"<?php $x = \"a\\":                  `str 1:12 "a\\" as=x`,
	})
}

func FuzzRead(f *testing.F) {
	for _, c := range cases {
		f.Add(c.src)
	}
	f.Add("<?php $a = \"{$b[\"c\"]}\"; $x = <<<'E'\nE;")
	f.Fuzz(readertest.Fuzz(Read))
}

// BenchmarkRead reads a generated PHP file of about 1 MB.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<?php\nnamespace Plients\\CloudFlare\\API\\Zones;\n\nuse Plients\\Http\\HttpResponse;\n\n")
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, `class Resource%d extends AbstractAPI
{
    /**
     * Lists the things of a zone, page by page.
     */
    public function list%d(string $zoneIdentifier, array $parameters = []): HttpResponse
    {
        $path = 'zones/' . $zoneIdentifier . '/things/%d';
        if (count($parameters) > 10) {
            throw new \InvalidArgumentException(sprintf('too many parameters: %%d', count($parameters)));
        }
        return $this->client->get("zones/{$zoneIdentifier}/rate_limits/%d", ['page' => $parameters['page'] ?? 1]);
    }
}

`, i, i, i, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		Read(src)
	}
}
