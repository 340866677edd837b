package apply

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sunsetscan/sunset/migrate"
)

// CostTable is the estimate of an apply of p by kind of step (rows) and purpose (columns),
// with each row's total and each column's, tab-aligned.
func CostTable(p *migrate.Plan) string {
	c := estimate(p, false, nil)
	var used []purpose
	var sums [purposes]int
	for _, row := range c {
		for q, v := range row {
			sums[q] += v
		}
	}
	for q := range purposes {
		if sums[q] > 0 {
			used = append(used, q)
		}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "kind\t")
	for _, q := range used {
		fmt.Fprintf(w, "%s\t", purposeNames[q])
	}
	fmt.Fprintln(w, "total\t")
	kinds := make([]string, 0, len(c))
	for k := range c {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	line := func(name string, row [purposes]int) {
		fmt.Fprintf(w, "%s\t", name)
		total := 0
		for _, q := range used {
			fmt.Fprintf(w, "%d\t", row[q])
			total += row[q]
		}
		fmt.Fprintf(w, "%d\t\n", total)
	}
	for _, k := range kinds {
		line(k, *c[k])
	}
	line("total", sums)
	_ = w.Flush()
	return b.String()
}
