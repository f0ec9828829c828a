package shscan

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// processScripts returns the command, precheck and validate scripts of p,
// the ones rule shell-syntax parses.
func processScripts(p *ir.Process) []string {
	var out []string
	add := func(f ir.Field[string]) {
		if f.Set && !f.Bad {
			out = append(out, f.Value)
		}
	}
	shells := func(ss ir.Strings) {
		if ss.Set && !ss.Bad {
			for _, f := range ss.Value {
				add(f)
			}
		}
	}
	for _, s := range p.Steps {
		if s.Precheck != nil {
			shells(s.Precheck.Shells)
		}
		for _, a := range s.Actions {
			if a.Kind == ir.Command {
				add(a.Script)
			}
		}
		if s.Validate != nil {
			shells(s.Validate.Shells)
		}
	}
	return out
}

// fileScripts parses one process file by its name's format.
func fileScripts(name string, src []byte) []string {
	format, ok := parse.FormatOf(name)
	if !ok || parse.NotProcess(name) {
		return nil
	}
	var p *ir.Process
	switch format {
	case ir.TOML:
		p, _ = parse.TOML(name, src)
	case ir.HCL:
		p, _ = parse.HCL(name, src)
	case ir.Card:
		p, _ = parse.Card(name, src)
	}
	if p == nil {
		return nil
	}
	return processScripts(p)
}

// benchScripts returns the scripts of bench/check.sh's corpora of kind k:
// files x steps command steps.
func benchScripts(k corpus.Kind, files, steps int) []string {
	var out []string
	for i := range files {
		name := corpus.ProcessName(i) + ".toml"
		out = append(out, fileScripts(name, corpus.Process(k, i, steps))...)
	}
	return out
}

// repoScripts returns the scripts of the repository's process files:
// examples, goldens and the testscripts' archives.
func repoScripts(t testing.TB) []string {
	root := filepath.Join("..", "..")
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != "." && n != ".." && strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".txtar") {
			for _, f := range txtar.Parse(src).Files {
				out = append(out, fileScripts(f.Name, f.Data)...)
			}
			return nil
		}
		out = append(out, fileScripts(path, src)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
