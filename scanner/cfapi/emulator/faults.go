package emulator

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/http"
	"time"
)

// draw returns three uniform numbers in [0, 1) for one request: latency, fault and fault kind.
// They are a hash of the seed, the request line and how many times that request line was seen,
// so decisions do not depend on how concurrent requests interleave, and a retry draws anew.
func (s *Server) draw(r *http.Request) (float64, float64, float64) {
	if s.opts.Latency.Max == s.opts.Latency.Min && !s.opts.Faults.Enabled() {
		return 0, 1, 0
	}
	key := r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery
	s.meta.Lock()
	n := s.seen[key]
	s.seen[key] = n + 1
	s.meta.Unlock()

	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(s.opts.Rand))
	h.Write(buf[:])
	h.Write([]byte(key))
	binary.LittleEndian.PutUint64(buf[:], n)
	h.Write(buf[:])
	x := h.Sum64()
	return unit(mix(x ^ 0x9e3779b97f4a7c15)), unit(mix(x ^ 0xbf58476d1ce4e5b9)), unit(mix(x ^ 0x94d049bb133111eb))
}

// mix is the splitmix64 finaliser: it spreads a hash over all 64 bits.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// latencyFor turns a uniform draw into the configured latency.
func (s *Server) latencyFor(u float64) time.Duration {
	l := s.opts.Latency
	if l.Max <= l.Min {
		return l.Min
	}
	return l.Min + time.Duration(u*float64(l.Max-l.Min+1))
}

// faultFor turns a uniform draw into an injected fault ("" for none).
func (s *Server) faultFor(u float64) string {
	f := s.opts.Faults
	switch {
	case u < f.Drop:
		return "drop"
	case u < f.Drop+f.ServerError:
		return "5xx"
	case u < f.Drop+f.ServerError+f.TooMany:
		return "429"
	case u < f.Drop+f.ServerError+f.TooMany+f.Lost:
		return faultLost
	}
	return ""
}

// resolveFailingZones maps the configured zone ids or names to ids; an entry matching no zone
// of the seed is an error, since it would silently inject nothing.
func resolveFailingZones(st *state, names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		found := false
		for _, z := range st.zones {
			if z.zone.ID == n || z.zone.Name == n {
				out[z.zone.ID] = true
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("fault zone=%s: no zone of the seed has that id or name", n)
		}
	}
	return out, nil
}

// zoneAlwaysFails reports whether a zone id is configured to fail every request.
func (s *Server) zoneAlwaysFails(id string) bool { return s.failing[id] }

// window is one credential's rate-limit window.
type window struct {
	start        time.Time
	count        int
	blockedUntil time.Time
}

// rateLimit counts a request against its credential's window. Over the limit, the credential
// is blocked for a whole window, like the real API ("every call fails with 429 for 5 minutes").
// It returns the Retry-After seconds, whether the request is refused, and the Ratelimit
// headers to send.
func (s *Server) rateLimit(credential string, now time.Time) (int, bool, http.Header) {
	spec := s.opts.RateLimit
	if !spec.Enabled() {
		return 0, false, nil
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	w := s.limits[credential]
	if w == nil {
		w = &window{start: now}
		s.limits[credential] = w
	}
	policy := fmt.Sprintf(`"default";q=%d;w=%d`, spec.Requests, ceilSeconds(spec.Window))
	if now.Before(w.blockedUntil) {
		wait := ceilSeconds(w.blockedUntil.Sub(now))
		return wait, true, http.Header{"Ratelimit-Policy": {policy}, "Ratelimit": {fmt.Sprintf(`"default";r=0;t=%d`, wait)}}
	}
	if !now.Before(w.start.Add(spec.Window)) {
		*w = window{start: now}
	}
	w.count++
	if w.count > spec.Requests {
		w.blockedUntil = now.Add(spec.Window)
		wait := ceilSeconds(spec.Window)
		return wait, true, http.Header{"Ratelimit-Policy": {policy}, "Ratelimit": {fmt.Sprintf(`"default";r=0;t=%d`, wait)}}
	}
	reset := ceilSeconds(w.start.Add(spec.Window).Sub(now))
	return 0, false, http.Header{"Ratelimit-Policy": {policy}, "Ratelimit": {fmt.Sprintf(`"default";r=%d;t=%d`, spec.Requests-w.count, reset)}}
}
