variable "zone_id" {
  type = string
}

# Every kind of record, with the data each needs: SRV and NAPTR ones among them.
variable "records" {
  type = map(any)
}

resource "cloudflare_record" "all" {
  for_each = var.records
  zone_id  = var.zone_id
  name     = each.value.name
  type     = lookup(each.value, "type", "CNAME")
  content  = try(each.value.content, null)

  dynamic "data" {
    for_each = try([each.value.data], [])
    content {
      flags       = try(data.value.flags, null)
      name        = try(data.value.name, null)
      order       = try(data.value.order, null)
      port        = try(data.value.port, null)
      preference  = try(data.value.preference, null)
      priority    = try(data.value.priority, null)
      proto       = try(data.value.proto, null)
      regex       = try(data.value.regex, null)
      replacement = try(data.value.replacement, null)
      service     = try(data.value.service, null)
      target      = try(data.value.target, null)
      weight      = try(data.value.weight, null)
    }
  }
}
