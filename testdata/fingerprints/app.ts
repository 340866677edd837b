import fetch from "node-fetch";

const base = "https://api.cloudflare.com/client/v4";

export async function bookmarks(accountId: string) {
  return fetch(`${base}/accounts/${accountId}/access/bookmarks`);
}

export async function mobileRedirect(zoneId: string) {
  return fetch("https://api.cloudflare.com/client/v4/zones/" + zoneId + "/settings/mobile_redirect", { method: "PATCH" });
}
