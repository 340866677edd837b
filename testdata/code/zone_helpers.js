// A front end that reaches the API through helpers defined in another file of the project:
// only the zone-relative part of each path is written here.
import { createZoneSetting, getZoneSetting, listAccountItems } from "../../lib/api";

export async function copyRules(auth, rules) {
  const { resp } = await getZoneSetting(auth, "/firewall/rules"); // want: firewall-rules
  async function sendPostRequest(data, endpoint) {
    return createZoneSetting(data, endpoint);
  }
  for (const rule of rules) {
    await sendPostRequest({ ...auth, data: [rule.filter] }, "/filters"); // want: filters
  }
  const limits = await getZoneSetting(
    auth,
    "/rate_limits" // want: rate-limiting-v1
  );
  await listAccountItems(auth, "/rulesets");
  return [resp, limits];
}
