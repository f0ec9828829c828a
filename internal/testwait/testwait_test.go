package testwait

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// module is this module's path: a selector of one of its packages'
// constants is folded from that package's folder.
const module = "github.com/cairn-dev/cairn"

// testSupport are the folders, besides every _test.go file, that hold code
// only tests run.
var testSupport = []string{"internal/testrepo", "internal/ghtest", "internal/source/sourcetest"}

// TestNoShortWaits holds every test of the module to waiting at least a
// minute before it fails: a deadline (time.After, time.NewTimer,
// time.AfterFunc, context.WithTimeout, time.Now().Add) of under a minute,
// or of a length that is no constant, and an elapsed time held to under a
// minute (d > 10*time.Second) are refused. A test waits on the event, with
// Patience as its bound. A machine loaded many times over makes what takes
// a second on an idle one take ten: a shorter deadline fails a test there
// that has nothing wrong.
func TestNoShortWaits(t *testing.T) {
	root := moduleRoot(t)
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".go") || !(strings.HasSuffix(path, "_test.go") || slices.Contains(testSupport, filepath.ToSlash(filepath.Dir(rel)))) {
			return nil
		}
		problems = append(problems, shortWaits(t, root, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("tests that wait less than a minute (wait through testwait: Patience, Until, After, Context):\n%s", strings.Join(problems, "\n"))
	}
}

// TestShortWaits holds the check to what it finds in a file of each kind.
func TestShortWaits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("consts.go", "package p\n\nimport \"time\"\n\nconst grace = 5 * time.Second\n\nconst long = 2 * time.Minute\n")
	write("p_test.go", `package p

import (
	"context"
	"time"
	clock "time"
)

func f(d time.Duration) {
	<-time.After(10 * time.Second)
	<-clock.After(grace)
	_ = time.NewTimer(d)
	_, _ = context.WithTimeout(context.Background(), 500*time.Millisecond)
	_ = time.Now().Add(30 * time.Second)
	if time.Since(time.Now()) > 45*time.Second {
	}
	if 2*time.Second <= d {
	}

	<-time.After(long)
	<-time.After(time.Minute)
	_ = time.Now().Add(90 * time.Second)
	_, _ = context.WithTimeout(context.Background(), time.Duration(60)*time.Second)
	if d < 50*time.Millisecond || d > time.Hour {
	}
	_ = time.NewTicker(10 * time.Millisecond)
	time.Sleep(5 * time.Millisecond)
}
`)
	got := shortWaits(t, dir, "p_test.go")
	want := []string{
		"p_test.go:10: time.After(10 * time.Second) waits 10s",
		"p_test.go:11: clock.After(grace) waits 5s",
		"p_test.go:12: time.NewTimer(d) waits a time that is no constant",
		"p_test.go:13: context.WithTimeout(context.Background(), 500*time.Millisecond) waits 500ms",
		"p_test.go:14: time.Now().Add(30 * time.Second) waits 30s",
		"p_test.go:15: time.Since(time.Now()) > 45*time.Second holds an elapsed time to 45s",
		"p_test.go:17: 2*time.Second <= d holds an elapsed time to 2s",
	}
	if !slices.Equal(got, want) {
		t.Errorf("shortWaits found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// moduleRoot is the folder of go.mod, above the test's folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// deadlines are the functions whose argument at the index given is how
// long they wait, by package and name.
var deadlines = map[string]map[string]int{
	"time":    {"After": 0, "NewTimer": 0, "AfterFunc": 0},
	"context": {"WithTimeout": 1, "WithTimeoutCause": 1},
}

// shortWaits lists the waits of under a minute in the file rel (a path
// under root), each as "FILE:LINE: what".
func shortWaits(t *testing.T, root, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	fold := &folder{root: root, dir: filepath.Dir(rel), consts: map[string]map[string]ast.Expr{}, imports: imports(f)}
	var found []string
	report := func(n ast.Node, format string, args ...any) {
		pos := fset.Position(n.Pos())
		found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), pos.Line, fmt.Sprintf(format, args...)))
	}
	// waits reports d, the length of the wait n, when it is under a minute
	// or no constant.
	waits := func(n, d ast.Expr) {
		switch v, ok := fold.duration(fold.dir, fold.imports, d, 0); {
		case !ok:
			report(n, "%s waits a time that is no constant", text(fset, n))
		case v < time.Minute:
			report(n, "%s waits %v", text(fset, n), v)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok {
				if i, ok := deadlines[fold.imports[pkg.Name]][sel.Sel.Name]; ok && i < len(n.Args) {
					waits(n, n.Args[i])
				}
			}
			// time.Now().Add(d): a deadline.
			if now, ok := sel.X.(*ast.CallExpr); ok && sel.Sel.Name == "Add" && len(n.Args) == 1 && fold.isTime(now.Fun, "Now") {
				waits(n, n.Args[0])
			}
		case *ast.BinaryExpr:
			// An elapsed time held to a bound: x > d, x >= d, d < x, d <= x.
			var x, d ast.Expr
			switch n.Op {
			case token.GTR, token.GEQ:
				x, d = n.X, n.Y
			case token.LSS, token.LEQ:
				x, d = n.Y, n.X
			default:
				return true
			}
			if _, ok := fold.duration(fold.dir, fold.imports, x, 0); ok || !fold.hasUnit(d) {
				return true
			}
			if v, ok := fold.duration(fold.dir, fold.imports, d, 0); ok && v < time.Minute {
				report(n, "%s holds an elapsed time to %v", text(fset, n), v)
			}
		}
		return true
	})
	return found
}

// text is the source of n as gofmt prints it.
func text(fset *token.FileSet, n ast.Node) string {
	var b strings.Builder
	if err := format.Node(&b, fset, n); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return b.String()
}

// imports maps the names a file gives its imports to their paths.
func imports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

// folder folds constant duration expressions, reading the constants of
// the file's package and of the module's packages it names.
type folder struct {
	root, dir string
	imports   map[string]string
	// consts are each folder's package-level constants, by name.
	consts map[string]map[string]ast.Expr
	// files are each folder's imports, by constant name.
	files map[string]map[string]map[string]string
}

// units are the time package's durations.
var units = map[string]time.Duration{
	"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond, "Millisecond": time.Millisecond,
	"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour,
}

// isTime reports whether e names the time package's function name.
func (f *folder) isTime(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && f.imports[pkg.Name] == "time" && sel.Sel.Name == name
}

// hasUnit reports whether e names one of the time package's units.
func (f *folder) hasUnit(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && f.imports[pkg.Name] == "time" && units[sel.Sel.Name] != 0 {
				found = true
			}
		}
		return !found
	})
	return found
}

// duration folds e, an expression of the file in dir whose imports are
// imps, to a duration; ok is false when e is no constant. depth bounds the
// constants it follows.
func (f *folder) duration(dir string, imps map[string]string, e ast.Expr, depth int) (d time.Duration, ok bool) {
	v, ok := f.value(dir, imps, e, depth)
	return time.Duration(v), ok
}

// value folds e to a number (of nanoseconds, for a duration).
func (f *folder) value(dir string, imps map[string]string, e ast.Expr, depth int) (float64, bool) {
	if depth > 20 {
		return 0, false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return 0, false
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
		return v, err == nil
	case *ast.ParenExpr:
		return f.value(dir, imps, e.X, depth)
	case *ast.UnaryExpr:
		v, ok := f.value(dir, imps, e.X, depth)
		if e.Op == token.SUB {
			v = -v
		}
		return v, ok && (e.Op == token.SUB || e.Op == token.ADD)
	case *ast.BinaryExpr:
		x, okx := f.value(dir, imps, e.X, depth)
		y, oky := f.value(dir, imps, e.Y, depth)
		if !okx || !oky {
			return 0, false
		}
		switch e.Op {
		case token.MUL:
			return x * y, true
		case token.QUO:
			return x / y, y != 0
		case token.ADD:
			return x + y, true
		case token.SUB:
			return x - y, true
		}
	case *ast.CallExpr:
		// time.Duration(x), a conversion.
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && len(e.Args) == 1 && sel.Sel.Name == "Duration" {
			if pkg, ok := sel.X.(*ast.Ident); ok && imps[pkg.Name] == "time" {
				return f.value(dir, imps, e.Args[0], depth)
			}
		}
	case *ast.Ident:
		return f.constant(dir, e.Name, depth)
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		if !ok {
			return 0, false
		}
		path := imps[pkg.Name]
		if path == "time" {
			u, ok := units[e.Sel.Name]
			return float64(u), ok
		}
		if rel, ok := strings.CutPrefix(path, module+"/"); ok {
			return f.constant(filepath.FromSlash(rel), e.Sel.Name, depth)
		}
	}
	return 0, false
}

// constant folds the package-level constant name of the package in dir.
func (f *folder) constant(dir, name string, depth int) (float64, bool) {
	if _, ok := f.consts[dir]; !ok {
		f.load(dir)
	}
	e, ok := f.consts[dir][name]
	if !ok {
		return 0, false
	}
	return f.value(dir, f.files[dir][name], e, depth+1)
}

// load reads the package-level constants of the Go files in dir.
func (f *folder) load(dir string) {
	f.consts[dir] = map[string]ast.Expr{}
	if f.files == nil {
		f.files = map[string]map[string]map[string]string{}
	}
	f.files[dir] = map[string]map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(f.root, dir, "*.go"))
	fset := token.NewFileSet()
	for _, p := range paths {
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		imps := imports(file)
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						f.consts[dir][n.Name] = vs.Values[i]
						f.files[dir][n.Name] = imps
					}
				}
			}
		}
	}
}
