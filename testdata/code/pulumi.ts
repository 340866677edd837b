import * as cloudflare from "@pulumi/cloudflare";

const zoneId = "0123456789abcdef0123456789abcdef";

export const settings = new cloudflare.ZoneSettingsOverride("site", { // want: zone-settings-bulk
  zoneId,
  settings: {
    brotli: "on", // want: zone-setting-brotli
    alwaysOnline: "on",
    serverSideExclude: "off", // want: zone-setting-server-side-exclude
  },
});

export const rules = new cloudflare.Ruleset("custom", {
  zoneId,
  kind: "zone",
  phase: "http_request_firewall_custom",
  rules: [
    {
      action: "managed_challenge",
      expression: "(cf.threat_score gt 10)", // want: threat-score-field
    },
  ],
});
