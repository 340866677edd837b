package reports

// VerificationShower is a reporter that shows the plan's verification (per zone, whether
// the new rules decide as the old ones), so a caller verifies the plan only when something
// it writes shows the result.
type VerificationShower interface {
	// ShowsVerification reports whether the reporter's output shows the verification.
	ShowsVerification() bool
}

// ShowsVerification implements VerificationShower: "what to do first" gives each zone's
// verification line and its differences.
func (h HTML) ShowsVerification() bool { return h.Plan != nil }
