import axios from "axios";

const api = axios.create({
  baseURL: "https://api.cloudflare.com/client/v4",
  headers: { Authorization: `Bearer ${process.env.CF_API_TOKEN}` },
});

export async function limits(zoneId: string) {
  const res = await api.get<{ result: unknown[] }>(`/zones/${zoneId}/rate_limits`); // want: rate-limiting-v1
  return res.data.result;
}

export async function pauseRule(zoneId: string, ruleId: string) {
  return api.patch(`/zones/${zoneId}/firewall/rules/${ruleId}`, { paused: true }); // want: firewall-rules
}

export async function wafOverride(zoneBase: string) {
  return fetch(zoneBase + "/firewall/waf/overrides", { method: "POST" }); // want: waf-managed-rules-v1
}

const re = /\/zones\/[^/]+\/filters/g;
export const isFilterPath = (p: string) => re.test(p) && p.length / 2 > 1;
