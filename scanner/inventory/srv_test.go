package inventory

import (
	"slices"
	"testing"
)

func TestComposeSRVName(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		data    RecordData
		zone    string
		want    string
		missing []string
	}{
		{RecordData{Service: s("_sip"), Proto: s("_tcp"), Name: s("example.com")}, "example.com", "_sip._tcp.example.com", nil},
		{RecordData{Service: s("sip"), Proto: s("TCP"), Name: s("@")}, "Example.com.", "_sip._tcp.example.com", nil},
		{RecordData{Service: s("_xmpp"), Proto: s("_tcp"), Name: s("chat")}, "example.com", "_xmpp._tcp.chat.example.com", nil},
		{RecordData{Service: s("_xmpp"), Proto: s("_tcp"), Name: s("chat.example.com.")}, "example.com", "_xmpp._tcp.chat.example.com", nil},
		{RecordData{Service: s("_sip"), Name: s(" ")}, "example.com", "", []string{"data.proto", "data.name"}},
	} {
		got, missing := tc.data.ComposeSRVName(tc.zone)
		if got != tc.want || !slices.Equal(missing, tc.missing) {
			t.Errorf("%+v in %s: got %q missing %v, want %q missing %v", tc.data, tc.zone, got, missing, tc.want, tc.missing)
		}
	}
}
