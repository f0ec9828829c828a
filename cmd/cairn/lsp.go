package main

import (
	"os"

	"github.com/urfave/cli/v3"

	"github.com/cairn-dev/cairn/lsp"
)

// lspCmd is `cairn lsp`.
type lspCmd struct {
	Stdio bool
}

// command is the command line of `cairn lsp`.
func (c *lspCmd) command() *cli.Command {
	return &cli.Command{
		Name:  "lsp",
		Usage: "Run the language server of process files on stdin and stdout, for editors.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Destination: &c.Stdio,
				Usage: "Talk over stdin and stdout: the only transport, accepted because editors pass it."},
		},
	}
}

// Run serves the language server on stdin and stdout until the editor
// sends exit or closes stdin.
func (c *lspCmd) Run(a *app) error {
	ctx, stop := interrupts()
	defer stop()
	return lsp.Serve(ctx, os.Stdin, a.stdout, lsp.Options{Version: version()})
}
