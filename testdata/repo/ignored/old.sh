curl -X GET "https://api.example.com/client/v4/zones/$ZONE_ID/firewall/rules"
