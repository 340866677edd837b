variable "zone_id" {
  type        = string
  description = "The zone to protect."
}
