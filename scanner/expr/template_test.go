package expr

import "testing"

func TestIsTemplated(t *testing.T) {
	yes := []string{
		`%[5]s`,
		`http.host eq "%[4]s"`,
		`http.request.full_uri in $redirect_list_%[1]s`,
		`http.host eq "%s"`,
		`x eq %d`,
		`x eq "%v" or y eq "%q"`,
		`ip.src ne ${var.waf_allowed_ip}`,
		`x in {${"${join(" ", var.c)}"}}`,
		`x eq "${ local.host }"`,
		`x eq "%{ if var.a }a%{ endif }"`,
		`x eq "%{~for h in var.hosts}${h} %{endfor}"`,
		`%[1]*d`,
	}
	no := []string{
		`http.request.uri.query contains "%3Cscript"`,
		`raw.http.request.uri contains "..%2F"`,
		`raw.http.request.uri.query contains "?%00"`,
		`http.request.uri contains "%d0%b0"`,
		`regex_replace("/foo/a/path", "^/foo/([^/]*)/(.*)$", "/bar/${2}/${1}") == "/bar/path/a/"`,
		`regex_replace("/b", "^/b$", "/b$$") == "/b$"`,
		`x eq "$${var.escaped}"`,
		`x eq "%%{ if escaped }"`,
		`x eq "100%%s"`,
		`x contains "%{other}"`,
		`x eq "${"`,
		`x eq "%["`,
		`x eq "%[1"`,
		`x eq "%[]s"`,
		`x eq "%"`,
		`x eq "$"`,
		`upper(http.request.uri.query) contains "$_GLOBALS["`,
	}
	for _, s := range yes {
		if !IsTemplated(s) {
			t.Errorf("IsTemplated(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsTemplated(s) {
			t.Errorf("IsTemplated(%q) = true", s)
		}
	}
}
