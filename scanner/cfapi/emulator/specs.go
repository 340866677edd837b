package emulator

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LatencySpec is the latency added to every request: fixed when Min == Max, otherwise drawn
// uniformly from [Min, Max] (deterministically from Options.Rand). The zero value adds none.
type LatencySpec struct {
	Min, Max time.Duration
}

// String renders the spec the way ParseLatency reads it.
func (l LatencySpec) String() string {
	if l.Min == l.Max {
		return l.Min.String()
	}
	return l.Min.String() + "-" + l.Max.String()
}

// ParseLatency reads "20ms" (fixed) or "10ms-30ms" (uniform range); "" and "0" mean none.
func ParseLatency(s string) (LatencySpec, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return LatencySpec{}, nil
	}
	lo, hi, isRange := strings.Cut(s, "-")
	shortest, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return LatencySpec{}, fmt.Errorf("latency %q: want a duration like 20ms or a range like 10ms-30ms", s)
	}
	longest := shortest
	if isRange {
		if longest, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil {
			return LatencySpec{}, fmt.Errorf("latency %q: want a duration like 20ms or a range like 10ms-30ms", s)
		}
	}
	if shortest < 0 || longest < shortest {
		return LatencySpec{}, fmt.Errorf("latency %q: durations must be non-negative and the range ascending", s)
	}
	return LatencySpec{Min: shortest, Max: longest}, nil
}

// FaultSpec says which faults the emulator injects. Shares are probabilities in [0, 1] per
// request, drawn deterministically from Options.Rand and the request (method, path, query and
// how many times that request was seen), so a run with the same seed and the same requests
// sees the same faults however they interleave, and a retry draws anew.
type FaultSpec struct {
	// TooMany is the share of requests answered 429 with a Retry-After header.
	TooMany float64
	// ServerError is the share of requests answered with a 5xx (500, 502, 503 or 504).
	ServerError float64
	// Drop is the share of requests whose connection is closed without any response.
	Drop float64
	// Lost is the share of writes carried out whose connection is then closed before the
	// answer (faults_lost.go): the client cannot tell whether the write happened.
	Lost float64
	// Zones are zone ids or names whose every zone-scoped request fails with 500.
	Zones []string
	// RetryAfter is the Retry-After of injected 429s (default 1s; rounded up to whole seconds).
	RetryAfter time.Duration
	// FirstCallTooMany answers the first call of every endpoint with a 429 and the
	// Retry-After above, and lets the retry through: an account whose limits throttle each
	// endpoint until the client has waited once. An endpoint is a method and a path, query
	// left out: the path names the zone, so every read of every zone is throttled once, and
	// the further pages of a list are not. The 429 comes at once, without Options.Latency, as
	// the API's rate limiter answers in front of the service.
	FirstCallTooMany bool
}

// Enabled reports whether any fault is configured.
func (f FaultSpec) Enabled() bool {
	return f.TooMany > 0 || f.ServerError > 0 || f.Drop > 0 || f.Lost > 0 || len(f.Zones) > 0 || f.FirstCallTooMany
}

// ParseFaults reads a comma-separated list of "429=SHARE", "5xx=SHARE", "drop=SHARE",
// "zone=ID_OR_NAME" (repeatable), "retry-after=DURATION" and "first429=1" (or 0; see
// FaultSpec.FirstCallTooMany), e.g. "429=0.1,5xx=0.2,drop=0.05,zone=example.com". Shares are in [0, 1] and sum to at most 1.
func ParseFaults(s string) (FaultSpec, error) {
	var f FaultSpec
	s = strings.TrimSpace(s)
	if s == "" {
		return f, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !found || v == "" {
			return FaultSpec{}, fmt.Errorf("fault %q: want KEY=VALUE (429, 5xx, drop, lost, zone, retry-after, first429)", part)
		}
		share := func() (float64, error) {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || x > 1 {
				return 0, fmt.Errorf("fault %q: the share must be a number between 0 and 1", part)
			}
			return x, nil
		}
		var err error
		switch k {
		case "429":
			f.TooMany, err = share()
		case "5xx", "500":
			f.ServerError, err = share()
		case "drop":
			f.Drop, err = share()
		case "lost":
			f.Lost, err = share()
		case "zone":
			f.Zones = append(f.Zones, v)
		case "first429":
			f.FirstCallTooMany, err = strconv.ParseBool(v)
			if err != nil {
				err = fmt.Errorf("fault %q: first429 wants 1 or 0", part)
			}
		case "retry-after", "retry_after":
			f.RetryAfter, err = time.ParseDuration(v)
			if err == nil && f.RetryAfter < 0 {
				err = fmt.Errorf("fault %q: retry-after must not be negative", part)
			} else if err != nil {
				err = fmt.Errorf("fault %q: retry-after wants a duration like 2s", part)
			}
		default:
			return FaultSpec{}, fmt.Errorf("fault %q: unknown kind %q (want 429, 5xx, drop, lost, zone, retry-after)", part, k)
		}
		if err != nil {
			return FaultSpec{}, err
		}
	}
	if sum := f.TooMany + f.ServerError + f.Drop + f.Lost; sum > 1+1e-9 {
		return FaultSpec{}, fmt.Errorf("faults %q: the shares add up to %.3g, more than 1", s, sum)
	}
	return f, nil
}

// RateLimitSpec is a global limit per credential like the real API's (1,200 requests per
// 5 minutes): once a credential sends more than Requests within Window, every call it makes
// fails with 429 and Retry-After until Window has passed. The zero value is no limit.
type RateLimitSpec struct {
	Requests int
	Window   time.Duration
}

// Enabled reports whether a limit is configured.
func (r RateLimitSpec) Enabled() bool { return r.Requests > 0 && r.Window > 0 }

// String renders the spec the way ParseRateLimit reads it.
func (r RateLimitSpec) String() string {
	if !r.Enabled() {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.Requests, r.Window)
}

// ParseRateLimit reads "N/WINDOW", e.g. "1200/5m" or "4/1s"; "" means no limit.
func ParseRateLimit(s string) (RateLimitSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return RateLimitSpec{}, nil
	}
	n, w, found := strings.Cut(s, "/")
	if !found {
		return RateLimitSpec{}, fmt.Errorf("rate limit %q: want N/WINDOW, e.g. 1200/5m", s)
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || count < 1 {
		return RateLimitSpec{}, fmt.Errorf("rate limit %q: N must be a positive integer", s)
	}
	w = strings.TrimSpace(w)
	if w != "" && (w[0] < '0' || w[0] > '9') {
		w = "1" + w // "100/s" reads as one second
	}
	window, err := time.ParseDuration(w)
	if err != nil || window <= 0 {
		return RateLimitSpec{}, fmt.Errorf("rate limit %q: WINDOW must be a positive duration like 5m", s)
	}
	return RateLimitSpec{Requests: count, Window: window}, nil
}
