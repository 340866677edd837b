// Page Shield and billing calls of an old dashboard widget.
export async function scripts(zoneId) {
  return fetch(`/client/v4/zones/${zoneId}/script_monitor`, { method: 'GET' });
}

export async function history() {
  return fetch('/client/v4/user/billing/history');
}
