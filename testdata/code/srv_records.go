package dns

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

const api = "https://api.cloudflare.com/client/v4"

type srvData struct {
	Service, Proto, Name, Target string
	Priority, Weight, Port       int
}

type record struct {
	Type, Name string
	Data       srvData
}

// AddSIP builds the record as a struct.
func AddSIP(ctx context.Context, c *http.Client, zoneID string) error {
	r := record{
		Type: "SRV",
		Name: "_sip._tcp.example.com",
		Data: srvData{
			Service: "_sip",        // want: srv-data-fields
			Proto:   "_tcp",        // want: srv-data-fields
			Name:    "example.com", // want: srv-data-fields
			Port:    5060,
		},
	}
	return post(ctx, c, fmt.Sprintf("%s/zones/%s/dns_records", api, zoneID), r)
}

// AddXMPP builds it as a map, as a JSON body would be.
func AddXMPP(ctx context.Context, c *http.Client, zoneID string) error {
	body := map[string]any{
		"type" /* as the API names it */ : "SRV",
		"data":                            map[string]any{"service": "_xmpp", "priority": 0}, // want: srv-data-fields
	}
	return post(ctx, c, api+"/zones/"+zoneID+"/dns_records", body)
}

// QueryType is how a query names a record type: SRV here is no record built.
type QueryType string

const QueryTypeSRV QueryType = "SRV"

func post(ctx context.Context, c *http.Client, url string, body any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(fmt.Sprint(body)))
	if err != nil {
		return err
	}
	_, err = c.Do(req)
	return err
}
