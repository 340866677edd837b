package terraform

import (
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// MinProviderVersion is the first provider release that accepts everything the output
// declares: cloudflare_zone_dns_settings and cloudflare_account_dns_settings first appear in
// 5.2.0 (a "~> 5.0" pin admits 5.0 and 5.1, which fail on them); 5.2.0 to 5.4.x refuse a
// rate limiting rule's period 120 or 300 (their validator allows 10, 60, 600, 3600 only),
// which the API accepts and the plan writes; and cloudflare_account_dns_settings has
// enforce_dns_only from 5.19.0, which the output must name in ignore_changes (the provider
// reads it back, so leaving it out would plan to clear it) and an older release refuses to
// see named.
const MinProviderVersion = "5.19.0"

// ProviderVersion is the provider version constraint written to versions.tf: 5.19.0 or later
// within major version 5 (a major release may rename what the output declares).
const ProviderVersion = ">= " + MinProviderVersion + ", < 6.0.0"

// CheckedProviderVersion is the provider release whose schema the output was checked against
// (migrate/internal/tfschema) and with which `terraform plan` was run on the demo's
// output.
const CheckedProviderVersion = "5.22.0"

// TerraformVersion is the Terraform version constraint of the v5 configuration: import
// blocks need 1.5. The removed blocks of the v4 state cleanup need 1.7 (CleanupTerraform).
const TerraformVersion = ">= 1.5.0"

// CleanupTerraform is the Terraform version the removed blocks of CleanupDir need.
const CleanupTerraform = ">= 1.7.0"

// versionsFile is versions.tf: the provider and Terraform requirements.
func versionsFile() []byte {
	v := hclwrite.NewEmptyFile()
	body := v.Body()
	body.AppendUnstructuredTokens(comment("Provider v5 from " + MinProviderVersion + " on (checked with " + CheckedProviderVersion + "). Before upgrading from v4, drop the old resources from state: README.md, step 1."))
	tf := body.AppendNewBlock("terraform", nil).Body()
	tf.SetAttributeValue("required_version", cty.StringVal(TerraformVersion))
	rp := tf.AppendNewBlock("required_providers", nil).Body()
	rp.SetAttributeValue("cloudflare", cty.ObjectVal(map[string]cty.Value{
		"source":  cty.StringVal("cloudflare/cloudflare"),
		"version": cty.StringVal(ProviderVersion),
	}))
	return finish(header("Provider requirements of the Terraform way to carry out ../plan.md (see README.md; use it or plan.md's API steps, never both)."), v)
}
