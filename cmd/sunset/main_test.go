package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
)

// TestMain lets testscript scripts exec "sunset" as a real process built from this package.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sunset": func() { os.Exit(cli.Main(os.Args, cli.SystemStreams())) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script (txtar files).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			// A stable environment: no colour, no CI-specific behaviour leaking in from the host.
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SUNSET_AS_OF", "")
			return nil
		},
	})
}
