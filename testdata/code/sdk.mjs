import Cloudflare from "cloudflare";

const client = new Cloudflare({ apiToken: process.env.CLOUDFLARE_API_TOKEN });

export async function run(zoneId) {
  for await (const rule of client.firewall.rules.list({ zone_id: zoneId })) { // want: firewall-rules
    console.log(rule.id);
  }
  const filters = await client.filters.list({ zone_id: zoneId }); // want: filters
  const entry = await client.rulesets.phases.get("http_request_firewall_custom", { zone_id: zoneId });
  return [filters, entry];
}
