package main

import (
	"github.com/cairn-dev/cairn/schema"
)

// schemaCmd is `cairn schema`.
type schemaCmd struct {
	File string `arg:"" name:"file" help:"The file whose schema to print: process (a TOML process file), card (a card's front matter), config, stubs or test."`
}

// Run prints the JSON Schema of the file.
func (c *schemaCmd) Run(a *app) error {
	b, err := schema.JSON(c.File)
	if err != nil {
		return usageError("%s", err)
	}
	_, err = a.stdout.Write(b)
	return err
}
