variable "zone_id" {
  type = string
}

variable "records" {
  type = map(any)
}

resource "cloudflare_record" "all" {
  for_each = var.records
  zone_id  = var.zone_id
  name     = each.value.name
  type     = each.value.type

  dynamic "data" {
    for_each = try([each.value.data], [])
    content {
      service  = try(data.value.service, null)
      proto    = try(data.value.proto, null)
      name     = try(data.value.name, null)
      priority = try(data.value.priority, null)
      weight   = try(data.value.weight, null)
      port     = try(data.value.port, null)
      target   = try(data.value.target, null)
    }
  }
}
