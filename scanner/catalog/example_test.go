package catalog_test

import (
	"fmt"
	"time"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

func ExampleCatalog_Lookup() {
	e, ok := catalog.Default().Lookup("firewall-rules")
	fmt.Println(ok, e.Title)
	fmt.Println("end of life:", e.EndOfLife, "source:", e.DateSource)
	fmt.Println("notice end of life:", e.Notice.EndOfLife)
	// Output:
	// true Firewall rules API
	// end of life: 2025-01-15 source: spec
	// notice end of life: 2025-06-15
}

func ExampleEntry_SeverityAt() {
	c := catalog.Default()
	fw, _ := c.Lookup("firewall-rules")
	for _, day := range []string{"2025-01-14", "2025-01-15"} {
		asOf, _ := time.Parse("2006-01-02", day)
		fmt.Println(day, fw.SeverityAt(asOf), fw.StatusAt(asOf))
	}
	threat, _ := c.Lookup("threat-score-field")
	fmt.Println("threat score:", threat.SeverityAt(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)))

	notice, _ := c.WithDates("notice")
	fw, _ = notice.Lookup("firewall-rules")
	fmt.Println("with notice dates, 2025-03-01:", fw.SeverityAt(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)))
	// Output:
	// 2025-01-14 warning deprecated
	// 2025-01-15 error retired
	// threat score: notice
	// with notice dates, 2025-03-01: warning
}

func ExampleCatalog_MatchEndpoint() {
	for _, e := range catalog.Default().MatchEndpoint("PATCH", "/client/v4/zones/023e105f4ecef8ad9ca31a8372d0c353/settings/?x=1") {
		fmt.Println(e.ID)
	}
	// Output:
	// cname-flattening-setting
	// zone-settings-bulk
}

func ExampleFieldCatalog_Field() {
	f, _ := catalog.Fields().Field("ip.geoip.country")
	fmt.Println(f.Type, f.Deprecated, f.RenamedTo)
	fn, _ := catalog.Fields().Function("regex_replace")
	fmt.Println(fn.Returns, fn.CustomRules)
	// Output:
	// String true ip.src.country
	// String false
}
