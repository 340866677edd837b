package migrate

// translator plans one resource kind. translate reads the objects of the builder's zone
// (b.z) or account (b.a) and the findings about them, and adds the steps that move them to
// their replacements, each in the phase it runs in. A translator keeps no state between
// scopes; what it needs across its own steps lives in a value it makes per scope.
type translator interface {
	translate(b *builder)
}

// zoneTranslators run on every zone, in this order, which is also the order of their steps
// within a phase: custom rules are created before rate limiting rules, and so on.
var zoneTranslators = []translator{
	firewallTranslator{},
	rateLimitTranslator{},
	wafTranslator{},
	dnsTranslator{},
	zoneSettingsTranslator{},
}

// accountTranslators run on every account.
var accountTranslators = []translator{
	accountTranslator{},
}
