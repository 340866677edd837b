package emulator

// buildRoutes registers every endpoint the emulator serves.
func (s *Server) buildRoutes() []*route {
	s.routes = nil
	s.zoneRoutes()
	s.firewallRoutes()
	s.wafRoutes()
	s.settingsRoutes()
	s.dnsRoutes()
	s.rulesetRoutes()
	s.otherRoutes()
	s.accessRoutes()
	s.auditRoutes()
	return s.routes
}
