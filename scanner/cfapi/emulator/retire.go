package emulator

import "time"

// retired answers a deprecated endpoint past its end of life when Options.Retire is set.
func (s *Server) retired(method, rel string, asOf time.Time) *reply {
	return nil
}
