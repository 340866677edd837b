package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A rule profile: rule objects with an expression and an action that a firewall rule and a
// ruleset rule alike could take.
const postedProfile = `{
  "name": "default",
  "rules": [
    {
      "description": "block the login page",
      "expression": "http.request.uri.path contains \"/login\"",
      "action": "block"
    },
    {
      "description": "challenge outside the country",
      "expression": "not ip.src.country in {\"FR\"}",
      "action": "managed_challenge",
      "priority": 2
    }
  ]
}
`

// A ruleset of the replacement, whoever sends it.
const postedRuleset = `{
  "phase": "http_request_firewall_custom",
  "rules": [{"expression": "ip.src eq 192.0.2.1", "action": "block"}]
}
`

// Rules of another tool: an action no firewall rule takes, a member only ruleset rules have.
const postedOther = `[
  {"expression": "http.host eq \"a.example\"", "action": "rewrite"},
  {"expression": "http.host eq \"b.example\"", "action": "block", "enabled": true}
]
`

const postingScript = `#!/bin/sh
for f in rules/*.json; do
  jq -c '.rules[]' "$f" | while read -r rule; do
    curl -s -X POST "https://api.cloudflare.com/client/v4/zones/$ZONE_ID/firewall/rules" --data "[$rule]"
  done
done
`

const readingScript = `#!/bin/sh
curl -s "https://api.cloudflare.com/client/v4/zones/$ZONE_ID/firewall/rules" > current.json
`

// firewallRuleLines checks the tree at dir and returns "path:line" of its firewall-rules
// findings in the files under rules/.
func firewallRuleLines(t *testing.T, dir string) []string {
	t.Helper()
	t.Chdir(dir)
	res, err := Check(context.Background(), Options{Paths: []string{"."}, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		if f.RuleID == "firewall-rules" && filepath.Dir(f.Location.Path) == "rules" {
			out = append(out, fmt.Sprintf("%s:%d", f.Location.Path, f.Location.StartLine))
		}
	}
	slices.Sort(out)
	return out
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRuleFilesPostedByAScriptOfTheRepositoryAreFirewallRules(t *testing.T) {
	rules := map[string]string{"rules/profile.json": postedProfile, "rules/ruleset.json": postedRuleset, "rules/other.json": postedOther}
	want := []string{"rules/profile.json:4", "rules/profile.json:9"}
	slices.Sort(want)
	tree := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range rules {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	t.Run("script beside the rule files", func(t *testing.T) {
		got := firewallRuleLines(t, writeTree(t, tree(map[string]string{"post-rules.sh": postingScript})))
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("script elsewhere in a git repository", func(t *testing.T) {
		got := firewallRuleLines(t, writeTree(t, tree(map[string]string{"bin/post-rules.sh": postingScript, ".git/HEAD": "ref: refs/heads/main\n"})))
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("a program posts them through an SDK", func(t *testing.T) {
		sdk := "package main\n\nimport \"github.com/cloudflare/cloudflare-go\"\n\nfunc post(api *cloudflare.API) { api.CreateFirewallRules(ctx, rc, rules) }\n"
		got := firewallRuleLines(t, writeTree(t, tree(map[string]string{"main.go": sdk})))
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("no script posts rules", func(t *testing.T) {
		if got := firewallRuleLines(t, writeTree(t, tree(map[string]string{"list.sh": readingScript}))); len(got) != 0 {
			t.Errorf("got %v, want none", got)
		}
	})
	t.Run("the script is in another repository", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"a/rules/profile.json": postedProfile, "b/post-rules.sh": postingScript})
		if got := firewallRuleLines(t, filepath.Join(dir, "a")); len(got) != 0 {
			t.Errorf("got %v, want none", got)
		}
		t.Chdir(dir)
		res, err := Check(context.Background(), Options{Paths: []string{"a", "b"}, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if f.RuleID == "firewall-rules" && f.Location.Path != "b/post-rules.sh" {
				t.Errorf("finding in a repository no script of which posts rules: %s:%d", f.Location.Path, f.Location.StartLine)
			}
		}
	})
}
