package inventory

// JSON methods that keep unknown members (see keep.go). One pair per type with an Extra field.

type refPlain Ref

// UnmarshalJSON decodes a Ref and keeps the members it does not model.
func (v *Ref) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*refPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Ref with the members it did not model.
func (v Ref) MarshalJSON() ([]byte, error) { return encodeKeeping(refPlain(v), v.Extra) }

type zonePlanPlain ZonePlan

// UnmarshalJSON decodes a ZonePlan and keeps the members it does not model.
func (v *ZonePlan) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*zonePlanPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a ZonePlan with the members it did not model.
func (v ZonePlan) MarshalJSON() ([]byte, error) { return encodeKeeping(zonePlanPlain(v), v.Extra) }

type zonePlain Zone

// UnmarshalJSON decodes a Zone and keeps the members it does not model.
func (v *Zone) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*zonePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Zone with the members it did not model.
func (v Zone) MarshalJSON() ([]byte, error) { return encodeKeeping(zonePlain(v), v.Extra) }

type accountSettingsPlain AccountSettings

// UnmarshalJSON decodes a AccountSettings and keeps the members it does not model.
func (v *AccountSettings) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*accountSettingsPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a AccountSettings with the members it did not model.
func (v AccountSettings) MarshalJSON() ([]byte, error) {
	return encodeKeeping(accountSettingsPlain(v), v.Extra)
}

type accountPlain Account

// UnmarshalJSON decodes a Account and keeps the members it does not model.
func (v *Account) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*accountPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Account with the members it did not model.
func (v Account) MarshalJSON() ([]byte, error) { return encodeKeeping(accountPlain(v), v.Extra) }

type filterPlain Filter

// UnmarshalJSON decodes a Filter and keeps the members it does not model.
func (v *Filter) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*filterPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Filter with the members it did not model.
func (v Filter) MarshalJSON() ([]byte, error) { return encodeKeeping(filterPlain(v), v.Extra) }

type firewallRulePlain FirewallRule

// UnmarshalJSON decodes a FirewallRule and keeps the members it does not model.
func (v *FirewallRule) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*firewallRulePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a FirewallRule with the members it did not model.
func (v FirewallRule) MarshalJSON() ([]byte, error) {
	return encodeKeeping(firewallRulePlain(v), v.Extra)
}

type rateLimitRequestPlain RateLimitRequest

// UnmarshalJSON decodes a RateLimitRequest and keeps the members it does not model.
func (v *RateLimitRequest) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rateLimitRequestPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RateLimitRequest with the members it did not model.
func (v RateLimitRequest) MarshalJSON() ([]byte, error) {
	return encodeKeeping(rateLimitRequestPlain(v), v.Extra)
}

type rateLimitResponsePlain RateLimitResponse

// UnmarshalJSON decodes a RateLimitResponse and keeps the members it does not model.
func (v *RateLimitResponse) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rateLimitResponsePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RateLimitResponse with the members it did not model.
func (v RateLimitResponse) MarshalJSON() ([]byte, error) {
	return encodeKeeping(rateLimitResponsePlain(v), v.Extra)
}

type rateLimitMatchPlain RateLimitMatch

// UnmarshalJSON decodes a RateLimitMatch and keeps the members it does not model.
func (v *RateLimitMatch) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rateLimitMatchPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RateLimitMatch with the members it did not model.
func (v RateLimitMatch) MarshalJSON() ([]byte, error) {
	return encodeKeeping(rateLimitMatchPlain(v), v.Extra)
}

type rateLimitActionPlain RateLimitAction

// UnmarshalJSON decodes a RateLimitAction and keeps the members it does not model.
func (v *RateLimitAction) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rateLimitActionPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RateLimitAction with the members it did not model.
func (v RateLimitAction) MarshalJSON() ([]byte, error) {
	return encodeKeeping(rateLimitActionPlain(v), v.Extra)
}

type rateLimitPlain RateLimit

// UnmarshalJSON decodes a RateLimit and keeps the members it does not model.
func (v *RateLimit) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rateLimitPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RateLimit with the members it did not model.
func (v RateLimit) MarshalJSON() ([]byte, error) { return encodeKeeping(rateLimitPlain(v), v.Extra) }

type wAFPackagePlain WAFPackage

// UnmarshalJSON decodes a WAFPackage and keeps the members it does not model.
func (v *WAFPackage) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*wAFPackagePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a WAFPackage with the members it did not model.
func (v WAFPackage) MarshalJSON() ([]byte, error) { return encodeKeeping(wAFPackagePlain(v), v.Extra) }

type wAFGroupPlain WAFGroup

// UnmarshalJSON decodes a WAFGroup and keeps the members it does not model.
func (v *WAFGroup) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*wAFGroupPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a WAFGroup with the members it did not model.
func (v WAFGroup) MarshalJSON() ([]byte, error) { return encodeKeeping(wAFGroupPlain(v), v.Extra) }

type wAFRulePlain WAFRule

// UnmarshalJSON decodes a WAFRule and keeps the members it does not model.
func (v *WAFRule) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*wAFRulePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a WAFRule with the members it did not model.
func (v WAFRule) MarshalJSON() ([]byte, error) { return encodeKeeping(wAFRulePlain(v), v.Extra) }

type wAFOverridePlain WAFOverride

// UnmarshalJSON decodes a WAFOverride and keeps the members it does not model.
func (v *WAFOverride) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*wAFOverridePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a WAFOverride with the members it did not model.
func (v WAFOverride) MarshalJSON() ([]byte, error) {
	return encodeKeeping(wAFOverridePlain(v), v.Extra)
}

type settingPlain Setting

// UnmarshalJSON decodes a Setting and keeps the members it does not model.
func (v *Setting) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*settingPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Setting with the members it did not model.
func (v Setting) MarshalJSON() ([]byte, error) { return encodeKeeping(settingPlain(v), v.Extra) }

type recordDataPlain RecordData

// UnmarshalJSON decodes a RecordData and keeps the members it does not model.
func (v *RecordData) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*recordDataPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RecordData with the members it did not model.
func (v RecordData) MarshalJSON() ([]byte, error) { return encodeKeeping(recordDataPlain(v), v.Extra) }

type dNSRecordPlain DNSRecord

// UnmarshalJSON decodes a DNSRecord and keeps the members it does not model.
func (v *DNSRecord) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*dNSRecordPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a DNSRecord with the members it did not model.
func (v DNSRecord) MarshalJSON() ([]byte, error) { return encodeKeeping(dNSRecordPlain(v), v.Extra) }

type nameserversPlain Nameservers

// UnmarshalJSON decodes a Nameservers and keeps the members it does not model.
func (v *Nameservers) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*nameserversPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Nameservers with the members it did not model.
func (v Nameservers) MarshalJSON() ([]byte, error) {
	return encodeKeeping(nameserversPlain(v), v.Extra)
}

type dNSSettingsPlain DNSSettings

// UnmarshalJSON decodes a DNSSettings and keeps the members it does not model.
func (v *DNSSettings) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*dNSSettingsPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a DNSSettings with the members it did not model.
func (v DNSSettings) MarshalJSON() ([]byte, error) {
	return encodeKeeping(dNSSettingsPlain(v), v.Extra)
}

type accountDNSSettingsPlain AccountDNSSettings

// UnmarshalJSON decodes a AccountDNSSettings and keeps the members it does not model.
func (v *AccountDNSSettings) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*accountDNSSettingsPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a AccountDNSSettings with the members it did not model.
func (v AccountDNSSettings) MarshalJSON() ([]byte, error) {
	return encodeKeeping(accountDNSSettingsPlain(v), v.Extra)
}

type rulesetRulePlain RulesetRule

// UnmarshalJSON decodes a RulesetRule and keeps the members it does not model.
func (v *RulesetRule) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rulesetRulePlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a RulesetRule with the members it did not model.
func (v RulesetRule) MarshalJSON() ([]byte, error) {
	return encodeKeeping(rulesetRulePlain(v), v.Extra)
}

type rulesetPlain Ruleset

// UnmarshalJSON decodes a Ruleset and keeps the members it does not model.
func (v *Ruleset) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*rulesetPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Ruleset with the members it did not model.
func (v Ruleset) MarshalJSON() ([]byte, error) { return encodeKeeping(rulesetPlain(v), v.Extra) }

type healthCheckPlain HealthCheck

// UnmarshalJSON decodes a HealthCheck and keeps the members it does not model.
func (v *HealthCheck) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*healthCheckPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a HealthCheck with the members it did not model.
func (v HealthCheck) MarshalJSON() ([]byte, error) {
	return encodeKeeping(healthCheckPlain(v), v.Extra)
}

type loadBalancerPoolPlain LoadBalancerPool

// UnmarshalJSON decodes a LoadBalancerPool and keeps the members it does not model.
func (v *LoadBalancerPool) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*loadBalancerPoolPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a LoadBalancerPool with the members it did not model.
func (v LoadBalancerPool) MarshalJSON() ([]byte, error) {
	return encodeKeeping(loadBalancerPoolPlain(v), v.Extra)
}

type tunnelPlain Tunnel

// UnmarshalJSON decodes a Tunnel and keeps the members it does not model.
func (v *Tunnel) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*tunnelPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a Tunnel with the members it did not model.
func (v Tunnel) MarshalJSON() ([]byte, error) { return encodeKeeping(tunnelPlain(v), v.Extra) }

type accessBookmarkPlain AccessBookmark

// UnmarshalJSON decodes a AccessBookmark and keeps the members it does not model.
func (v *AccessBookmark) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*accessBookmarkPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a AccessBookmark with the members it did not model.
func (v AccessBookmark) MarshalJSON() ([]byte, error) {
	return encodeKeeping(accessBookmarkPlain(v), v.Extra)
}

type accessAppPlain AccessApp

// UnmarshalJSON decodes an AccessApp and keeps the members it does not model.
func (v *AccessApp) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*accessAppPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes an AccessApp with the members it did not model.
func (v AccessApp) MarshalJSON() ([]byte, error) { return encodeKeeping(accessAppPlain(v), v.Extra) }

type notificationPolicyPlain NotificationPolicy

// UnmarshalJSON decodes a NotificationPolicy and keeps the members it does not model.
func (v *NotificationPolicy) UnmarshalJSON(b []byte) error {
	x, err := decodeKeeping(b, (*notificationPolicyPlain)(v))
	v.Extra = x
	return err
}

// MarshalJSON encodes a NotificationPolicy with the members it did not model.
func (v NotificationPolicy) MarshalJSON() ([]byte, error) {
	return encodeKeeping(notificationPolicyPlain(v), v.Extra)
}
