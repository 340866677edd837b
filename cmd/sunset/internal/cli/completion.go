package cli

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// scripts are the completion scripts `sunset completion SHELL` prints; each calls back
// `sunset __complete` (complete.go) for the candidates.
//
//go:embed completion/sunset.*
var scripts embed.FS

// completionShells are the shells sunset completes in, each with its script's file.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// scriptFiles are the scripts' files under completion/, by shell.
var scriptFiles = map[string]string{
	"bash": "sunset.bash", "zsh": "sunset.zsh", "fish": "sunset.fish", "powershell": "sunset.ps1",
}

// completionCommand is `sunset completion SHELL`.
func completionCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh, fish or powershell",
		ArgsUsage: "SHELL",
		Description: "Prints a script that completes sunset's commands, flags, formats, levels, rule ids and\n" +
			"help topics in SHELL (" + strings.Join(completionShells, ", ") + "). Load it from the shell's start-up file:\n" +
			"  bash (~/.bashrc):         source <(sunset completion bash)\n" +
			"  zsh (~/.zshrc):           source <(sunset completion zsh)\n" +
			"  fish:                     sunset completion fish > ~/.config/fish/completions/sunset.fish\n" +
			"  PowerShell ($PROFILE):    sunset completion powershell | Out-String | Invoke-Expression\n" +
			"The script asks sunset for the candidates, so it stays right as sunset changes.",
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("completion takes one shell: %s", strings.Join(completionShells, ", "))
			}
			shell := c.Args().First()
			if !slices.Contains(completionShells, shell) {
				return usageErrorf("completion: no script for %q (want %s)", shell, strings.Join(completionShells, ", "))
			}
			data, err := scripts.ReadFile("completion/" + scriptFiles[shell])
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(s.Out, string(data))
			return err
		},
	}
}
