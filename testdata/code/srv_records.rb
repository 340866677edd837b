require "net/http"

# SRV records of a zone, built as hashes and sent to the zone's dns_records.
def srv_record(service, proto, domain, target)
  {
    type: "SRV",
    data: {
      service: service, # want: srv-data-fields
      proto: proto, # want: srv-data-fields
      name: domain, # want: srv-data-fields
      port: 443, target: target
    }
  }
end

def publish(conn, zone_id, record)
  conn.post("zones/#{zone_id}/dns_records", record.to_json)
end
