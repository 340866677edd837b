package emulator

import (
	"fmt"
	"net/http"
	"time"
)

// retired answers a deprecated endpoint past its end of life when Options.Retire is set: the
// request matches a catalog endpoint that is retired as a whole (not one that only carries a
// deprecated field, such as the DNS record routes), of a non-advisory entry whose end of life
// is on or before the emulator's date. The answer is a 404 envelope saying the endpoint is no
// longer available and naming the replacement, counted in Stats.Retired; nil means "serve
// normally".
func (s *Server) retired(method, rel string, asOf time.Time) *reply {
	if !s.opts.Retire {
		return nil
	}
	for _, m := range s.catalog.MatchRoute(method, rel) {
		e := m.Entry
		if m.Endpoint.Affected || e.Advisory || e.EndOfLife.IsZero() || asOf.Before(e.EndOfLife.Time) {
			continue
		}
		msg := fmt.Sprintf("%s %s is no longer available: %s reached its end of life on %s", method, m.Endpoint.Path, e.Title, e.EndOfLife)
		if e.Replacement != "" {
			msg += "; replacement: " + e.Replacement
		}
		s.meta.Lock()
		s.stats.Retired++
		s.meta.Unlock()
		return fail(http.StatusNotFound, CodeNoRoute, "%s", msg)
	}
	return nil
}
