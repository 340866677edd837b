module "edge" {
  source   = "./modules/edge"
  for_each = toset(["eu", "us"])

  zone_id = "c4ca4238a0b923820dcc509a6f75849b"
  region  = each.key
}

module "edge_staging" {
  source  = "./modules/edge"
  zone_id = "c81e728d9d4c2f636f067f89cc14862c"
  region  = "staging"
}
