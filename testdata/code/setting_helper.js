// A dashboard that changes zone settings through helpers of its own.
import { patchSetting } from "./api";

export async function tidy(zoneId) {
  await patchSetting(zoneId, "mobile_redirect", { status: "off" }); // want: zone-setting-mobile-redirect
  await patchSetting(zoneId, "ssl", "strict");
}
