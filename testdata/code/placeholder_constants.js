// A worker whose settings the user fills in before deploying: the constants are left empty
// or hold a placeholder, and the paths built from them still have a hole where the zone goes.
const authEmail = "";
const authToken = "";
const domainZone = "";
const zoneTag = "<your zone id>";
const account = "[ACCOUNT ID]";

export async function blockVisitor(ip) {
  const init = {
    method: "POST",
    headers: { Authorization: "Bearer " + authToken, "X-Auth-Email": authEmail },
    body: JSON.stringify([{ expression: "ip.src eq " + ip }]),
  };
  await fetch("https://api.cloudflare.com/client/v4/zones/" + domainZone + "/filters", init); // want: filters
  await fetch(`https://api.cloudflare.com/client/v4/zones/${zoneTag}/firewall/rules`, init); // want: firewall-rules
  await fetch(`https://api.cloudflare.com/client/v4/accounts/${account}/rulesets`, init);
}

// Not paths of the API: an empty prefix before a page of the site, an empty segment in
// another host's page, a placeholder in prose.
const staticBase = "";
export const styles = staticBase + "/assets//filters.css";
export const guide = "https://example.com/zones//filters-guide";
export const hint = "Put <your zone id> in the filters box";
