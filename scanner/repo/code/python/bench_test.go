package python

import (
	"fmt"
	"strings"
	"testing"
)

// generate returns Python source of about n bytes in the style of API client code: classes,
// methods, request calls, f-strings, % and .format, dicts, comprehensions, comments.
func generate(n int) []byte {
	var b strings.Builder
	b.WriteString("\"\"\"Generated module.\"\"\"\nimport os\nimport requests\nfrom cloudflare import Cloudflare\n\nBASE = 'https://api.cloudflare.com/client/v4'\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `class Client%[1]d(object):
    """A client for zone %[1]d."""

    def __init__(self, token, zone_id=None, *args, **kwargs):
        self.token = token  # keep it
        self.zone_id = zone_id
        self.session = requests.Session()
        self.headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    @property
    def url%[1]d(self) -> str:
        return BASE + "/zones/" + self.zone_id + "/firewall/rules"

    async def rules%[1]d(self, page: int = 1, per_page: int = 50):
        url = f"{BASE}/zones/{self.zone_id}/filters?page={page}&per_page={per_page:>3}"
        r = await self.session.get(url, headers=self.headers, params={"page": page})
        data = r.json()
        ids = [x["id"] for x in data.get("result", []) if x.get("paused") is not True]
        return {k: v for k, v in zip(ids, range(len(ids)))}

    def limits%[1]d(self, rule_id):
        path = "/zones/%%s/rate_limits/%%s" %% (self.zone_id, rule_id)
        other = "/zones/{}/settings/{name}".format(self.zone_id, name="ssl")
        full = os.path.join(BASE, "zones", self.zone_id, "settings")
        cf = Cloudflare(api_token=self.token)
        rule = cf.zones.firewall.rules.get(self.zone_id, params={"per_page": 50, "match": "all"})
        payload = {
            'expression': 'ip.src eq 192.0.2.%[1]d and http.request.uri.path contains "/admin"',
            'action': 'block',
            'description': 'rule %[1]d',
            'nested': {'a': [1, 2, 3], 'b': lambda q: q * 2},
        }
        return requests.post(path, json=payload, timeout=30) or (other, full, rule)


`, i)
	}
	return []byte(b.String())
}

func BenchmarkRead(b *testing.B) {
	src := generate(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Read(src)
	}
}

// BenchmarkLex is the tokenizer alone, to tell its share of BenchmarkRead.
func BenchmarkLex(b *testing.B) {
	src := generate(1 << 20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		l := newLexer(src)
		var t token
		for l.next(&t); t.kind != tEOF; {
			l.next(&t)
		}
	}
}
