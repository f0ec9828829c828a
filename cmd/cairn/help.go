package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v3"
)

// helpWidth is the width cairn's help is wrapped to.
const helpWidth = 80

// writeHelp writes the help of cmd, cairn's root or one of its commands:
// the usage line, what it does, its arguments, its flags (those every
// command takes first) and, at the root, the commands.
func writeHelp(w io.Writer, cmd *cli.Command) error {
	var b strings.Builder
	root := cmd.Root()
	if cmd == root {
		b.WriteString("Usage: cairn <command> [flags]\n\n")
	} else {
		b.WriteString("Usage: cairn " + cmd.Name)
		for _, a := range cmd.Arguments {
			b.WriteString(" " + a.Usage())
		}
		b.WriteString(" [flags]\n\n")
	}
	for _, line := range wrap(cmd.Usage, helpWidth) {
		b.WriteString(line + "\n")
	}
	if len(cmd.Arguments) > 0 {
		b.WriteString("\nArguments:\n")
		var rows []helpRow
		for _, a := range cmd.Arguments {
			if p, ok := a.(*positional); ok {
				rows = append(rows, helpRow{p.Usage(), p.help})
			}
		}
		writeRows(&b, rows)
	}
	b.WriteString("\nFlags:\n")
	groups := [][]helpRow{flagRows(root.Flags)}
	if cmd != root && len(cmd.Flags) > 0 {
		groups = append(groups, flagRows(cmd.Flags))
	}
	writeRows(&b, groups...)
	if cmd == root {
		b.WriteString("\nCommands:\n")
		var rows []helpRow
		for _, c := range cmd.Commands {
			rows = append(rows, helpRow{c.Name, c.Usage})
		}
		writeRows(&b, rows)
		b.WriteString("\nRun \"cairn <command> --help\" for more information on a command.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// helpRow is one line of a table in the help, before wrapping: a flag,
// an argument or a command, and what it is for.
type helpRow struct{ left, help string }

// flagRows are the help's rows of flags: "-o, --output=FILE", with the
// flag's usage.
func flagRows(flags []cli.Flag) []helpRow {
	var rows []helpRow
	for _, f := range flags {
		left := "    "
		var long string
		for _, n := range f.Names() {
			if len(n) == 1 {
				left = "-" + n + ", "
			} else if long == "" {
				long = "--" + n
			}
		}
		usage, placeholder := flagUsage(f)
		if placeholder != "" {
			long += "=" + placeholder
		}
		rows = append(rows, helpRow{left + long, usage})
	}
	return rows
}

// flagUsage is a flag's usage for the help, and the placeholder of its
// value: the usage's first `quoted` word, as Go's flag package takes it,
// else the flag's default, else its name in capitals; "" for a flag that
// takes no value.
func flagUsage(f cli.Flag) (usage, placeholder string) {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return "", ""
	}
	usage = d.GetUsage()
	if before, rest, ok := strings.Cut(usage, "`"); ok {
		if name, after, ok := strings.Cut(rest, "`"); ok {
			return before + name + after, name
		}
	}
	switch {
	case !d.TakesValue():
		return usage, ""
	case d.GetValue() != "":
		return usage, d.GetValue()
	}
	return usage, strings.ToUpper(f.Names()[0])
}

// writeRows writes groups of rows as one table: the left column as wide
// as its widest entry, the help beside it wrapped to helpWidth, and a
// blank line between groups.
func writeRows(b *strings.Builder, groups ...[]helpRow) {
	width := 0
	for _, rows := range groups {
		for _, r := range rows {
			width = max(width, len(r.left))
		}
	}
	indent := strings.Repeat(" ", 2+width+4)
	for i, rows := range groups {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, r := range rows {
			lines := wrap(r.help, helpWidth-len(indent))
			b.WriteString("  " + r.left)
			if len(lines) == 0 {
				b.WriteString("\n")
				continue
			}
			b.WriteString(strings.Repeat(" ", width-len(r.left)+4) + lines[0] + "\n")
			for _, l := range lines[1:] {
				b.WriteString(indent + l + "\n")
			}
		}
	}
}

// wrap breaks text into lines of at most width characters, at spaces; a
// word longer than width has a line to itself.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
