package main

import (
	"github.com/cairn-dev/cairn/schema"
)

// schemaCmd is `cairn schema`.
type schemaCmd struct {
	File string `arg:"" name:"file" help:"The schema to print: process (a TOML process file), card (a card's front matter), config, stubs, test, or events (the lines of cairn run --json)."`
}

// Run prints the JSON Schema of the file, or of the run events.
func (c *schemaCmd) Run(a *app) error {
	b, err := schema.JSON(c.File)
	if err != nil {
		return usageError("%s", err)
	}
	_, err = a.stdout.Write(b)
	return err
}
