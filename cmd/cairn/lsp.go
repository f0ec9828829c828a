package main

import (
	"os"

	"github.com/cairn-dev/cairn/lsp"
)

// lspCmd is `cairn lsp`.
type lspCmd struct {
	Stdio bool `help:"Talk over stdin and stdout: the only transport, accepted because editors pass it."`
}

// Run serves the language server on stdin and stdout until the editor
// sends exit or closes stdin.
func (c *lspCmd) Run(a *app) error {
	ctx, stop := interrupts(a.ctx)
	defer stop()
	return lsp.Serve(ctx, os.Stdin, a.stdout, lsp.Options{Version: version(), Env: a.env})
}
