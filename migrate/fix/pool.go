package fix

import (
	"fmt"
	"slices"
)

// The resource types whose notification_email the catalog deprecates.
var notificationEmailTypes = []string{"cloudflare_load_balancer_pool", "cloudflare_healthcheck"}

// notificationEmails drops notification_email from the module's load balancer pools (and
// health checks): its addresses are no longer mailed past its end of life, and what replaces
// it, a notification policy, is the owner's to set up (sunset plan writes one per pool); the
// addresses are listed in what fix leaves.
func (f *fixer) notificationEmails(ev *evaluator, m *Module) {
	for _, r := range m.Resources {
		a, ok := r.Block.Body.Attributes["notification_email"]
		if !ok || !slices.Contains(notificationEmailTypes, r.Type) {
			continue
		}
		emails := knownString(ev, a.Expr)
		if emails == "" {
			emails = normalText(exprText(r.File, a.Expr))
		}
		todo := fmt.Sprintf("set up a notification policy (cloudflare_notification_policy, alert type load_balancing_health_alert, filtered on this pool's id, an email mechanism per address of %s; sunset plan writes it): until then nobody is mailed about its health", emails)
		start, end := lineSpan(r.File, a.SrcRange.Start.Byte, a.SrcRange.End.Byte)
		said := "" // where the attribute stood, what to do instead
		if start < a.SrcRange.Start.Byte || start == lineStart(r.File.Src, start) {
			said = commentLines("sunset fix: "+r.Address()+".notification_email dropped: "+todo+".", string(r.File.Src[start:a.SrcRange.Start.Byte]))
		}
		f.rewriteBlock(r.File, r.Block.Range(), []edit{{start: start, end: end, text: said}})
		f.res.Rewrites = append(f.res.Rewrites, Rewrite{
			Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address() + ".notification_email"}, New: r.Address(),
			Proven: "nothing to prove: the field is deprecated and no longer mails anyone", Notes: []string{"notification_email dropped: " + todo},
		})
		f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: a.SrcRange.Start.Line, Message: r.Address() + ".notification_email dropped: " + todo})
	}
}
