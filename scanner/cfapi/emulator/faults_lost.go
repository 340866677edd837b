package emulator

import "net/http"

// faultLost is the fault of a write carried out whose answer never arrives: the state
// changed, then the connection is closed. It is what makes a retried POST create twice, so
// an executor must read back before it sends again.
const faultLost = "lost"

// loseAnswer closes the connection of a write the handler has carried out, instead of
// answering, and reports whether it did (reads and refused writes are answered as usual).
func (s *Server) loseAnswer(w http.ResponseWriter, entry *LoggedRequest, status int) bool {
	switch entry.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	if status >= 300 {
		return false
	}
	entry.Fault, entry.Status = faultLost, 0
	s.record(*entry)
	dropConnection(w)
	return true
}
