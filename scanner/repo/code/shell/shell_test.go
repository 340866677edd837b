package shell

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
	{"curl api calls", `#!/bin/bash
# comment with "quotes" and 'more'
API="https://api.cloudflare.com/client/v4"
ZONE_ID=$(curl -s "$API/zones?name=$DOMAIN" | jq -r '.result[0].id')
curl -X PUT "$API/zones/$ZONE_ID/settings/waf" \
  -H "Authorization: Bearer ${CF_TOKEN}" \
  --data '{"value":"on"}'
echo $# "$#" a#b
http --ignore-stdin PATCH "$API"/zones/"$ZONE_ID"/filters expression='ip.src eq 1.2.3.4' paused:=false
wget -q -O - "${API}/accounts/${ACCOUNT_ID:-default}/tunnels" > /dev/null 2>&1
`, []string{
		`str 3:1 "https://api.cloudflare.com/client/v4" as=API`,
		`str 4:16 "-s" call=0 arg=0`,
		`str 4:19 "https://api.cloudflare.com/client/v4/zones?name=\x00" call=0 arg=1 holes=DOMAIN`,
		`str 4:50 "-r" call=1 arg=0`,
		`str 4:53 ".result[0].id" call=1 arg=1`,
		`str 5:6 "-X" call=2 arg=0`,
		`str 5:9 "PUT" call=2 arg=1`,
		`str 5:13 "https://api.cloudflare.com/client/v4/zones/\x00/settings/waf" call=2 arg=2 holes=ZONE_ID`,
		`str 6:3 "-H" call=2 arg=3`,
		`str 6:6 "Authorization: Bearer \x00" call=2 arg=4 holes=CF_TOKEN`,
		`str 7:3 "--data" call=2 arg=5`,
		`str 7:10 "{\"value\":\"on\"}" call=2 arg=6`,
		`str 8:14 "a#b" call=3 arg=2`,
		`str 9:6 "--ignore-stdin" call=4 arg=0`,
		`str 9:21 "PATCH" call=4 arg=1`,
		`str 9:27 "https://api.cloudflare.com/client/v4/zones/\x00/filters" call=4 arg=2 holes=ZONE_ID`,
		`str 9:59 "ip.src eq 1.2.3.4" key=expression call=4 arg=3`,
		`str 9:90 "false" key=paused call=4 arg=4`,
		`str 10:6 "-q" call=5 arg=0`,
		`str 10:9 "-O" call=5 arg=1`,
		`str 10:12 "-" call=5 arg=2`,
		`str 10:14 "https://api.cloudflare.com/client/v4/accounts/\x00/tunnels" call=5 arg=3 holes=ACCOUNT_ID`,
		`call 4:11 curl args=,`,
		`call 4:47 jq args=,`,
		`call 5:1 curl args=,,,,,,`,
		`call 8:1 echo args=,,`,
		`call 9:1 http args=,,,, keys=expression@0,paused@0`,
		`call 10:1 wget args=,,,`,
	}},
	{"script structure", "#!/usr/bin/env bash\n" +
		"set -euo pipefail\n" +
		"source ./lib/common.sh\n" +
		". \"$HOME/.cfrc\"\n" +
		"\n" +
		"BASE=https://api.cloudflare.com/client/v4/\n" +
		"export CF_API=\"${BASE}zones\"\n" +
		"local_fn() {\n" +
		"  local path=\"$1/filters\"\n" +
		"  curl -sS \"$CF_API/$path\"\n" +
		"}\n" +
		"function delete_rule {\n" +
		"  sudo -E curl --request DELETE \"$CF_API/$ZONE/firewall/rules/$1\"\n" +
		"}\n" +
		"for z in zone1 \"zone 2\"; do\n" +
		"  if [[ \"$z\" == \"zone1\" ]]; then\n" +
		"    DEBUG=1 curl -X GET \"$CF_API/$z/rate_limits\"\n" +
		"  fi\n" +
		"done\n" +
		"case \"$1\" in\n" +
		"  list|ls) cfcli list \"$2\" ;;\n" +
		"  *) echo \"usage\" ;;\n" +
		"esac\n" +
		"cat <<EOF > /tmp/body.json\n" +
		"{\"expression\": \"ip.src eq $IP\",\n" +
		" \"zone\": \"$(get_zone)\"}\n" +
		"EOF\n" +
		"curl --data @- \"$CF_API\" <<-'RAW'\n" +
		"\tliteral $NOT_A_VAR\n" +
		"\tRAW\n" +
		"printf 'zones/%s/settings/%s\\n' \"$ZONE\" minify\n" +
		"ids=(a \"b/c\" $d)\n" +
		"( cd /tmp && wget \"http://x/a\" )\n" +
		"echo $'tab\\there' `date +%s` $((1+2))\n" +
		"curl \"https://api.cloudflare.com/client/v4/zones/$ZONE/pagerules\"\\\n" +
		"\"?status=active\"\n" +
		"", []string{
		`import ./lib/common.sh`,
		`import /.cfrc`,
		`decl local_fn`,
		`decl delete_rule`,
		`str 2:5 "-euo" call=0 arg=0`,
		`str 2:10 "pipefail" call=0 arg=1`,
		`str 6:1 "https://api.cloudflare.com/client/v4/" as=BASE`,
		`str 7:8 "https://api.cloudflare.com/client/v4/zones" as=CF_API`,
		`str 9:9 "\x00/filters" as=path`,
		`str 10:8 "-sS" call=1 arg=0`,
		`str 10:12 "https://api.cloudflare.com/client/v4/zones/\x00/filters" call=1 arg=1`,
		`str 13:16 "--request" call=2 arg=0`,
		`str 13:26 "DELETE" call=2 arg=1`,
		`str 13:33 "https://api.cloudflare.com/client/v4/zones/\x00/firewall/rules/\x00" call=2 arg=2 holes=ZONE,`,
		`str 15:10 "zone1"`,
		`str 15:16 "zone 2"`,
		`str 16:17 "zone1"`,
		`str 17:5 "1" as=DEBUG`,
		`str 17:18 "-X" call=3 arg=0`,
		`str 17:21 "GET" call=3 arg=1`,
		`str 17:25 "https://api.cloudflare.com/client/v4/zones/\x00/rate_limits" call=3 arg=2 holes=z`,
		`str 21:18 "list" call=4 arg=0`,
		`str 22:11 "usage" call=5 arg=0`,
		`str 25:1 "{\"expression\": \"ip.src eq \x00\"," call=6 holes=IP`,
		`str 26:1 " \"zone\": \"\x00\"}" call=6`,
		`str 28:6 "--data" call=8 arg=0`,
		`str 28:13 "@-" call=8 arg=1`,
		`str 28:16 "https://api.cloudflare.com/client/v4/zones" call=8 arg=2`,
		`str 29:2 "literal $NOT_A_VAR" call=8`,
		`str 31:8 "zones/\x00/settings/\x00\\n" call=9 arg=0 holes=ZONE,`,
		`str 31:41 "minify" call=9 arg=2`,
		`str 32:6 "a" as=ids`,
		`str 32:8 "b/c" as=ids`,
		`str 33:6 "/tmp" call=10 arg=0`,
		`str 33:19 "http://x/a" call=11 arg=0`,
		`str 34:6 "tab\there" call=12 arg=0`,
		`str 34:25 "+%s" call=13 arg=0`,
		`str 35:6 "https://api.cloudflare.com/client/v4/zones/\x00/pagerules?status=active" call=14 arg=0 holes=ZONE`,
		`call 2:1 set args=,`,
		`call 10:3 curl args=,`,
		`call 13:11 curl args=,,`,
		`call 17:13 curl args=,,`,
		`call 21:12 cfcli args=,`,
		`call 22:6 echo`,
		`call 24:1 cat`,
		`call 26:13 get_zone`,
		`call 28:1 curl args=,,CF_API`,
		`call 31:1 printf args=,ZONE,`,
		`call 33:3 cd`,
		`call 33:14 wget`,
		`call 34:1 echo args=,,`,
		`call 34:20 date`,
		`call 35:1 curl`,
	}},
	{"quoting and variables", "URL=\"https://api.example.com/v4\"\n" +
		"URL=\"$URL/again\"\n" +
		"curl \"$URL/zones\"\n" +
		"ZONE=abc\n" +
		"ZONE=$(lookup)\n" +
		"wget \"http://h/$ZONE\"\n" +
		"echo \"a\\\"b\\$c\\`d\\\\e\\q\" 'it'\"'\"'s' \\$HOME x\\ y\n" +
		"curl -H'X: 1' \"$(printf '%s' \"$(inner \"deep/er\")\")/x\" ; ls -la | grep -v \"^d\" && true || false &\n" +
		"printf -- \"--%s--\" \"$A\"\n" +
		"echo ${#ARR[@]} ${X%%/*} ${Y/a/b} ${Z:-zones/$W} ${V-default}\n" +
		"FOO=bar\n" +
		"echo \"${FOO:-x}/1\" \"${FOO}/2\" \"$FOO/3\"\n" +
		"", []string{
		`str 1:1 "https://api.example.com/v4" as=URL`,
		`str 2:1 "https://api.example.com/v4/again" as=URL`,
		`str 3:6 "\x00/zones" call=0 arg=0 holes=URL`,
		`str 4:1 "abc" as=ZONE`,
		`str 6:6 "http://h/\x00" call=2 arg=0 holes=ZONE`,
		"str 7:6 \"a\\\"b$c`d\\\\e\\\\q\" call=3 arg=0",
		`str 7:24 "it's" call=3 arg=1`,
		`str 7:35 "$HOME" call=3 arg=2`,
		`str 7:42 "x y" call=3 arg=3`,
		`str 8:6 "-HX: 1" call=4 arg=0`,
		`str 8:15 "\x00/x" call=4 arg=1`,
		`str 8:39 "deep/er" call=6 arg=0`,
		`str 8:60 "-la" call=7 arg=0`,
		`str 8:71 "-v" call=8 arg=0`,
		`str 8:74 "^d" call=8 arg=1`,
		`str 9:8 "--" call=11 arg=0`,
		`str 9:11 "--\x00--" call=11 arg=1 holes=A`,
		`str 11:1 "bar" as=FOO`,
		`str 12:6 "bar/1" call=13 arg=0`,
		`str 12:20 "bar/2" call=13 arg=1`,
		`str 12:31 "bar/3" call=13 arg=2`,
		`call 3:1 curl`,
		`call 5:8 lookup`,
		`call 6:1 wget`,
		`call 7:1 echo args=,,,`,
		`call 8:1 curl args=,`,
		`call 8:18 printf args=,`,
		`call 8:33 inner`,
		`call 8:57 ls`,
		`call 8:66 grep args=,`,
		`call 8:82 true`,
		`call 8:90 false`,
		`call 9:1 printf args=,,A`,
		`call 10:1 echo args=,,,Z,`,
		`call 12:1 echo args=,,`,
	}},
	{"heredocs and pipelines", `curl -s https://api.cloudflare.com/client/v4/zones/$ZONE_ID/firewall/waf/packages \
     -H "X-Auth-Email: $EMAIL" |
  jq '.result'
cat <<EOF | curl -X POST --data @- "https://api.cloudflare.com/client/v4/zones/$Z/filters"
[{"expression": "http.request.uri.path ~ \"^.*wp-login.php$\""}]
EOF
cat << "QUOTED"
$(not run) $ZONE
QUOTED
echo unterminated 'single
`, []string{
		`str 1:6 "-s" call=0 arg=0`,
		`str 1:9 "https://api.cloudflare.com/client/v4/zones/\x00/firewall/waf/packages" call=0 arg=1 holes=ZONE_ID`,
		`str 2:6 "-H" call=0 arg=2`,
		`str 2:9 "X-Auth-Email: \x00" call=0 arg=3 holes=EMAIL`,
		`str 3:6 ".result" call=1 arg=0`,
		`str 4:18 "-X" call=3 arg=0`,
		`str 4:21 "POST" call=3 arg=1`,
		`str 4:26 "--data" call=3 arg=2`,
		`str 4:33 "@-" call=3 arg=3`,
		`str 4:36 "https://api.cloudflare.com/client/v4/zones/\x00/filters" call=3 arg=4 holes=Z`,
		`str 5:1 "[{\"expression\": \"http.request.uri.path ~ \\\"^.*wp-login.php$\\\"\"}]" call=2`,
		`str 8:1 "$(not run) $ZONE" call=4`,
		`str 10:6 "unterminated" call=5 arg=0`,
		`str 10:19 "single\n" call=5 arg=1`,
		`call 1:1 curl args=,,,`,
		`call 3:3 jq`,
		`call 4:1 cat`,
		`call 4:13 curl args=,,,,`,
		`call 7:1 cat`,
		`call 10:1 echo args=,`,
	}},
}

func TestRead(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			readertest.Case(t, Read, "shell", c.src, c.want)
		})
	}
}

// TestPositions checks a command continued over lines: its End, and columns in characters.
func TestPositions(t *testing.T) {
	src := "echo \"é\"; curl -X PUT \\\n  \"$API/zones/$Z/settings\" \\\n  --data '{}'\n"
	f := Read([]byte(src))
	if len(f.Calls) != 2 {
		t.Fatalf("got %q", lexkit.Describe(f))
	}
	c := f.Calls[1]
	if c.Pos != (code.Pos{Line: 1, Col: 11}) || c.End != (code.Pos{Line: 3, Col: 13}) {
		t.Errorf("call at %v-%v", c.Pos, c.End)
	}
	s := f.Strings[3]
	if s.Value != "\x00/zones/\x00/settings" || s.Pos != (code.Pos{Line: 2, Col: 3}) || s.End != (code.Pos{Line: 2, Col: 26}) {
		t.Errorf("string %q at %v-%v", s.Value, s.Pos, s.End)
	}
}

func FuzzRead(f *testing.F) {
	for _, c := range cases {
		f.Add(c.src)
	}
	f.Add("a=(\n$(b <<X\nc\nX\n)) ${x:-${y}} `d \\` e`` f")
	f.Fuzz(readertest.Fuzz(Read))
}

// BenchmarkRead reads a generated script of about 1 MB.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("#!/usr/bin/env bash\nset -euo pipefail\nAPI=\"https://api.cloudflare.com/client/v4\"\n\n")
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, `# Lists the rules of zone %d, then pauses the first one.
list_rules_%d() {
  local zone="$1"
  curl -sS -X GET "$API/zones/${zone}/firewall/rules?page=%d" \\
    -H "Authorization: Bearer $CF_API_TOKEN" \\
    -H 'Content-Type: application/json' | jq -r '.result[].id' > "/tmp/rules_%d.txt"
  if [[ -s "/tmp/rules_%d.txt" ]]; then
    echo "zone $zone has $(wc -l < /tmp/rules_%d.txt) rules"
  fi
}

`, i, i, i, i, i, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		Read(src)
	}
}
