resource "cloudflare_zone" "shop" {
  account_id = "f037e56e89293a057740de681ac9abbe"
  zone       = "shop.example.com"
  plan       = "business"
}
