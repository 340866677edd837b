// Command sunset finds deprecated zone management API usage in live accounts and config
// repositories and writes the plans that migrate it. See README.md.
package main

import (
	"os"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	_ "github.com/sunsetscan/sunset/cmd/sunset/internal/hugeheap" // huge pages for a check's heap, asked for as the process starts
)

func main() { os.Exit(cli.Main(os.Args, cli.SystemStreams())) }
