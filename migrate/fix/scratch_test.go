package fix

import (
	"fmt"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

func TestScratch(t *testing.T) {
	for _, d := range []string{"literal", "foreach"} {
		res, err := Run(Options{Root: "testdata/" + d, Target: terraform.ProviderV5})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			fmt.Printf("=== %s\n%s\n", f.Path, f.New)
		}
		fmt.Printf("%+v\n", res.Rewrites)
		fmt.Printf("%+v\n", res.Left)
		fmt.Printf("%+v\n", res.StateSteps)
	}
}
