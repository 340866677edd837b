terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 3.35"
    }
  }
}

variable "zone_id" {
  type    = string
  default = "b1946ac92492d2347c6235b4d2611184"
}

variable "group_modes" {
  type        = map(string)
  description = "set per environment"
}

locals {
  upload_paths = {
    admin = ["shop.example.com/admin/upload*"]
    media = ["shop.example.com/media/*", "media.example.com/*"]
  }
}

# Uploads trip rule 100015: off for the upload paths.
resource "cloudflare_waf_override" "uploads" {
  for_each    = local.upload_paths
  zone_id     = var.zone_id
  description = "uploads: ${each.key}"
  urls        = each.value
  rules = {
    "100015" = "disable"
  }
}

# Rules put back to their default after a test.
resource "cloudflare_waf_rule" "defaults" {
  for_each = toset(["100001", "100002"])
  zone_id  = var.zone_id
  rule_id  = each.value
  mode     = "default"
}

resource "cloudflare_waf_group" "per_environment" {
  for_each = var.group_modes
  zone_id  = var.zone_id
  group_id = each.key
  mode     = each.value
}
