package main

import (
	"github.com/urfave/cli/v3"

	"github.com/cairn-dev/cairn/schema"
)

// schemaCmd is `cairn schema`.
type schemaCmd struct {
	File string
}

// command is the command line of `cairn schema`.
func (c *schemaCmd) command() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "Print the JSON Schema of a file cairn reads, for editors: process, card, config, stubs or test.",
		Arguments: []cli.Argument{&positional{name: "file", word: &c.File,
			help: "The file whose schema to print: process (a TOML process file), card (a card's front matter), config, stubs or test."}},
	}
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
