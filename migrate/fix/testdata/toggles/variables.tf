variable "zone_id" {
  type        = string
  description = "The shop's zone."
}

variable "office_ip" {
  type        = string
  description = "Where the back office is reached from."
}

variable "protect_back_office" {
  type    = bool
  default = true
}

variable "challenge_scanners" {
  type = bool
}

variable "fence_countries" {
  type    = bool
  default = false
}

variable "fenced_countries" {
  type    = list(string)
  default = ["KP", "SY"]
}

variable "gate_risky_posts" {
  type    = bool
  default = false
}
