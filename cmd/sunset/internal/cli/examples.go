package cli

import (
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/cmd/sunset/help"
)

// example is one line of a command's EXAMPLES: what it does, and the command line.
type example struct{ what, line string }

// examples are each command's EXAMPLES, shown at the end of its --help as the GitHub CLI
// shows them: real command lines, from the first run to the less common ones.
var examples = map[string][]example{
	"demo": {
		{"Scan the demo account; write sunset-demo-report.json and sunset-demo-report.html", "sunset demo"},
		{"Also write the demo account's migration plan", "sunset demo --plan-dir demo-plan/"},
		{"Save the demo account's snapshot, to plan or scan it offline later", "sunset demo --snapshot-out demo.jsonl"},
	},
	"scan": {
		{"Every zone of every account the token sees", "sunset scan"},
		{"One zone, a JSON report to a file and the table on the terminal", "sunset scan --zone example.com --format json:report.json --format table"},
		{"Save the snapshot and write the migration plan in the same run", "sunset scan --snapshot-out snap.jsonl --plan-dir plan/"},
		{"Print the requests and the time a scan would take, and exit", "sunset scan --dry-run"},
		{"Rescan only the zones changed since a snapshot", "sunset scan --since snap.jsonl --snapshot-out new.jsonl"},
	},
	"check": {
		{"Fail (exit 1) on deprecated usage at or above --fail-on", "sunset check ."},
		{"SARIF for code scanning and annotations in a GitHub Actions log", "sunset check --format sarif:sunset.sarif --format github infra/ scripts/"},
		{"One line per finding, as compilers print", "sunset check --format line ."},
		{"Accept what exists today, then fail only on new findings", "sunset check --write-baseline .sunset-baseline.json ."},
		{"Check one file given on standard input", "sunset check --stdin-type json --stdin-name export.json - < export.json"},
	},
	"plan": {
		{"Scan the accounts and write the plan to plan/", "sunset plan --plan-dir plan/"},
		{"Plan offline from a saved snapshot", "sunset plan --snapshot snap.jsonl --plan-dir plan/"},
		{"One zone, without verifying the plan", "sunset plan --snapshot snap.jsonl --zone example.com --no-verify --plan-dir plan/"},
	},
	"verify": {
		{"Verify the plan that 'sunset plan --plan-dir plan/' wrote", "sunset verify plan/"},
		{"The result as JSON in a file, and the table on the terminal", "sunset verify plan/ --format json:verify.json --format table"},
		{"Build the plan from a snapshot as 'sunset plan' does, and verify it", "sunset verify --snapshot snap.jsonl"},
		{"A plan from an incomplete scan: verify the zones it read whole", "sunset verify plan/ --partial"},
	},
	"apply": {
		{"Dry run: per zone the requests it would send, what cannot be undone, the manual steps, time", "sunset apply plan/"},
		{"Carry the reviewed plan out, recording each step in a journal", "sunset apply plan/ --yes --journal apply.journal"},
		{"Continue after a kill, a crash, or zones that stopped", "sunset apply --resume apply.journal --yes"},
		{"Undo what the journal did, in reverse, to the last safe point", "sunset apply --rollback apply.journal --yes"},
		{"Create and pause, delete nothing (resume later without --keep-old)", "sunset apply plan/ --yes --keep-old"},
	},
	"fix": {
		{"Show the rewrite of a Terraform repository as a diff (nothing changes)", "sunset fix infra/"},
		{"Write it, for provider v4 (removed blocks forget the old resources)", "sunset fix --target v4 --write infra/"},
		{"In CI: exit 1 while there is something to fix", "sunset fix --check ."},
		{"With the account as a scan saw it: plans, live ids as refs, imports", "sunset fix --snapshot plan/snapshot.json --write ."},
		{"A zone's plan given by hand", "sunset fix --zone-plan example.com=pro --zone-plan var.zone_id=business ."},
	},
	"translate": {
		{"Translate one expression", `sunset translate 'ip.geoip.country in {"CN" "RU"} and http.request.uri.path contains "/wp-login.php"'`},
		{"An expression from standard input, checked for a Pro zone, as JSON", "sunset translate --zone-plan pro --format json - < expression.txt"},
		{"A firewall rules file to the body of the custom rules entry point", "sunset translate --rules firewall_rules.json --zone-plan business --existing entrypoint.json > custom-rules.json"},
	},
	"report": {
		{"Render a saved JSON report as HTML and Markdown, offline", "sunset report report.json --format html:report.html --format markdown:report.md"},
		{"With the migration plan's steps and diffs", "sunset report report.json --plan-dir plan/ --format html:report.html"},
		{"A report read from standard input, as CSV", "sunset report - --format csv:findings.csv < report.json"},
	},
	"rules": {
		{"Every catalog entry and its status today", "sunset rules"},
		{"The status as of another day", "sunset rules --as-of 2026-06-30"},
		{"Two entries, every field", "sunset rules firewall-rules rate-limiting-v1 --format json"},
		{"Every field of every entry, with your own entries added", "sunset rules --catalog my-catalog.yaml --format json"},
	},
	"emulator": {
		{"Serve the demo account on 127.0.0.1:8787 (prints the URL and credentials)", "sunset emulator"},
		{"Another port, and a token of your own", "sunset emulator --listen 127.0.0.1:9999 --token my-test-token"},
		{"A generated account of 2,000 zones that a plan migrates by API calls alone", "sunset emulator --zones 2000 --seed 1 --migratable"},
		{"Inject faults and latency, and answer as retired past end of life", "sunset emulator --faults 429=0.1,5xx=0.05 --latency 10ms-30ms --retire"},
	},
	"completion": {
		{"The bash script: load it with 'source <(sunset completion bash)' in ~/.bashrc", "sunset completion bash"},
		{"The zsh script: 'source <(sunset completion zsh)' in ~/.zshrc, after compinit", "sunset completion zsh"},
		{"Install the fish script where fish finds it", "sunset completion fish > ~/.config/fish/completions/sunset.fish"},
	},
	"version": {
		{"Print the version, the commit and its date, and the Go version", "sunset version"},
		{"The same as JSON, for scripts", "sunset version --format json"},
		{"The same as text", "sunset --version"},
	},
	"help": {
		{"List the help topics", "sunset help topics"},
		{"Write the manual pages (sunset.1, a page per command and per topic)", "sunset help --man man/"},
		{"Apply's help, then how an apply runs", "sunset help apply"},
		{"What a scan and an apply cost in requests and time", "sunset help cost"},
	},
}

// learnMore names, per command without a topic of its own name, the topics that say more.
var learnMore = map[string][]string{
	"demo":       {"scan", "formats"},
	"report":     {"formats", "json"},
	"rules":      {"catalog"},
	"completion": {"flags"},
	"version":    {"development"},
}

// commandHelpTail is what follows a command's options in its help: EXAMPLES, then LEARN MORE
// (the topics behind it), as a text/template literal.
func commandHelpTail(name string) string {
	var b strings.Builder
	if list := examples[name]; len(list) > 0 {
		b.WriteString("\nEXAMPLES:\n")
		for i, ex := range list {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "   # %s\n   $ %s\n", ex.what, ex.line)
		}
	}
	topics := learnMore[name]
	if help.Has(name) {
		topics = append([]string{name}, topics...)
	}
	if len(topics) > 0 {
		b.WriteString("\nLEARN MORE:\n")
		for _, t := range topics {
			fmt.Fprintf(&b, "   sunset help %s\n", t)
		}
	}
	return quoted(b.String())
}
