package reports

// Incremental says what an incremental rescan (sunset scan --since) read again and what it
// took from the earlier snapshot; zones are named, sorted.
type Incremental struct {
	// Since is the earlier snapshot's time of collection (RFC 3339).
	Since string `json:"since"`
	// Rescanned are the zones read again: changed since, added since, or incomplete before.
	Rescanned []string `json:"rescanned"`
	// Reused are the zones taken from the earlier snapshot.
	Reused []string `json:"reused"`
	// Added and Removed are the zones the listing shows new or no longer shows.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// FullScan, when set, says why every zone was scanned (the audit log could not be read).
	FullScan string `json:"full_scan,omitempty"`
}
