// Another DNS provider's records: an SRV record shaped alike, no call to this API.
export function srv(target) {
  return {
    type: "SRV",
    data: { service: "_sip", proto: "_tcp", name: "example.com", target },
  };
}
