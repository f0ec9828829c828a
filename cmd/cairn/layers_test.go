package main

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayers holds the module's imports to the package table of
// docs/design.md §3: a package of the table imports only packages below
// it that its row names, ir and internal/ ones; a package of internal/
// imports only ir and internal/ ones; and every package is in the table or
// under internal/.
func TestLayers(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	design, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|.*\\| (.*) \\|$")
	rank := map[string]int{}
	listed := map[string]map[string]bool{}
	for i, m := range row.FindAllStringSubmatch(string(design), -1) {
		rank[m[1]] = i
		if !strings.Contains(m[2], "the packages below") {
			listed[m[1]] = tableImports(m[2])
		}
	}
	if len(rank) < 10 {
		t.Fatalf("docs/design.md: found %d rows of the package table", len(rank))
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/cairn-dev/cairn/"
	low := func(p string) bool { return p == "ir" || strings.HasPrefix(p, "internal/") }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "bench") {
			continue
		}
		r, inTable := rank[pkg]
		if !inTable && !low(pkg) {
			t.Errorf("%s is in neither docs/design.md's package table nor internal/", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			switch {
			case low(pkg) && !low(dep):
				t.Errorf("%s imports %s, above internal/", pkg, dep)
			case inTable && !low(dep) && rank[dep] <= r:
				t.Errorf("%s imports %s, which is not below it in docs/design.md's package table", pkg, dep)
			case inTable && !low(dep) && listed[pkg] != nil && !listed[pkg][dep]:
				t.Errorf("%s imports %s, which its row of docs/design.md's package table does not name", pkg, dep)
			}
		}
	}
}

// tableImports are the packages a row's imports cell names: each word of
// its code spans, "internal/{git,proc}" standing for internal/git and
// internal/proc.
func tableImports(cell string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		for _, word := range strings.Fields(m[1]) {
			prefix, names, ok := strings.Cut(strings.TrimSuffix(word, "}"), "{")
			if !ok {
				out[word] = true
				continue
			}
			for _, n := range strings.Split(names, ",") {
				out[prefix+n] = true
			}
		}
	}
	return out
}

// screen is the most lines a command's Run may take: past it, its logic
// belongs in a package.
const screen = 60

// TestCommandsAreThin holds each command's Run (a method of a type whose
// name ends in Cmd) to a screen: it reads its flags, calls into the
// packages that own the policy, and maps the result to an exit code.
func TestCommandsAreThin(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Run" || fn.Body == nil {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if id, ok := star.X.(*ast.Ident); !ok || !strings.HasSuffix(id.Name, "Cmd") {
				continue
			}
			commands++
			lines := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Body.Lbrace).Line - 1
			if lines > screen {
				t.Errorf("%s: %s.Run is %d lines long; more than %d, its policy belongs in a package", fset.Position(fn.Pos()), star.X, lines, screen)
			}
		}
	}
	if commands < 10 {
		t.Fatalf("found %d commands' Run methods", commands)
	}
}
