package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// RuleAmbiguousProcess is the ID of the rule about two files of one process
// name in one folder.
const RuleAmbiguousProcess = "ambiguous-process"

// RuleUnknownProcess is the ID of the rule about a process that cannot be
// found by name.
const RuleUnknownProcess = "unknown-process"

// processExts are the process file extensions, in the order a name is looked
// up in a folder (docs/design.md §5).
var processExts = []string{".toml", ".hcl", parse.CardSuffix}

// Found is a process that lookup by name reaches: its name, its file, the
// format the file's name says, and the folder it was found in.
type Found struct {
	Name   string
	File   string
	Format ir.Format
	Dir    string
}

// ProcessDirs returns the folders processes are looked up in, in order:
// $CAIRN_HOME/processes, then each entry of the config's process_path, a
// relative one taken relative to the repository's root (and skipped outside a
// repository).
func ProcessDirs(env *Env) []string {
	var dirs []string
	if env.Home != "" {
		dirs = append(dirs, filepath.Join(env.Home, "processes"))
	}
	if env.Config == nil {
		return dirs
	}
	for _, f := range env.Config.ProcessPath.Value {
		if f.Bad || f.Value == "" {
			continue
		}
		d := filepath.FromSlash(f.Value)
		if !filepath.IsAbs(d) {
			if env.Repo == nil {
				continue
			}
			d = filepath.Join(env.Repo.Root, d)
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	return dirs
}

// isPath reports whether a process argument names a file rather than a
// process: it holds a slash or has an extension (docs/design.md §5).
func isPath(arg string) bool {
	return strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) || filepath.Ext(arg) != ""
}

// Find returns the file a process argument names: arg itself when it is a
// path (it must exist), else the process of that name in the first folder of
// ProcessDirs that has one. It returns "" and a diagnostic that belongs to no
// file when there is none, or when the first folder holding the name holds
// it twice (ambiguous-process).
func Find(env *Env, arg string) (string, []ir.Diagnostic) {
	if isPath(arg) {
		if fi, err := os.Stat(workdir.Path(env.Dir, arg)); err != nil || fi.IsDir() {
			return "", []ir.Diagnostic{{
				Rule:     RuleUnknownProcess,
				Severity: ir.Error,
				Message:  fmt.Sprintf("no process file %q", arg),
				Range:    ir.Range{},
			}}
		}
		return arg, nil
	}
	f := findByName(env, arg)
	if f.diag != nil {
		return "", []ir.Diagnostic{*f.diag}
	}
	return f.file, nil
}

// byName is a lookup by name as cached: the file, or why there is none
// and the name of a process close to it that the message suggests.
type byName struct {
	file       string
	diag       *ir.Diagnostic
	suggestion string
}

// findByName looks a process name up in ProcessDirs, once per invocation.
func findByName(env *Env, name string) byName {
	return lookupOnce(env, "process-by-name:"+name, func() byName {
		dirs := ProcessDirs(env)
		if name != "" && !isPath(name) {
			for _, dir := range dirs {
				files := namedIn(dir, name)
				switch {
				case len(files) == 1:
					return byName{file: files[0]}
				case len(files) > 1:
					return byName{diag: &ir.Diagnostic{
						Rule:     RuleAmbiguousProcess,
						Severity: ir.Error,
						Message:  ambiguous(name, files),
					}}
				}
			}
		}
		looked := "no folder to look in"
		if len(dirs) > 0 {
			looked = "looked in " + strings.Join(dirs, ", ")
		}
		found, _ := List(env)
		names := make([]string, 0, len(found))
		for _, f := range found {
			names = append(names, f.Name)
		}
		s := ir.Suggest(name, names)
		return byName{suggestion: s, diag: &ir.Diagnostic{
			Rule:     RuleUnknownProcess,
			Severity: ir.Error,
			Message:  fmt.Sprintf("no process named %q; %s%s", name, looked, ir.Meant(s)),
		}}
	})
}

// namedIn returns the files of process name in dir, in lookup order.
func namedIn(dir, name string) []string {
	var files []string
	for _, ext := range processExts {
		p := filepath.Join(dir, name+ext)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files
}

// ambiguous is the message of a process name held by several files of one
// folder.
func ambiguous(name string, files []string) string {
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	and := strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
	fix := "remove one"
	if len(files) > 2 {
		fix = "keep only one"
	}
	return fmt.Sprintf("process %q is ambiguous: %s are in one folder; %s", name, and, fix)
}

// List returns every process that lookup by name reaches, sorted by name: a
// name in an earlier folder of ProcessDirs shadows the same name in a later
// one. A name held by two files of one folder is ambiguous: it is left out
// (and still shadows later folders), with one ambiguous-process diagnostic at
// each file after the first.
func List(env *Env) ([]Found, []ir.Diagnostic) {
	var found []Found
	var diags []ir.Diagnostic
	seen := map[string]bool{}
	for _, dir := range ProcessDirs(env) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			// A folder that does not exist holds no processes.
			continue
		}
		filesOf := map[string][]string{}
		var names []string
		for _, e := range entries {
			if _, ok := parse.FormatOf(e.Name()); !ok || parse.NotProcess(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			name := parse.NameOf(e.Name())
			if seen[name] {
				continue
			}
			if filesOf[name] == nil {
				names = append(names, name)
			}
			filesOf[name] = append(filesOf[name], p)
		}
		for _, name := range names {
			seen[name] = true
			files := filesOf[name]
			slices.SortFunc(files, func(a, b string) int { return extOrder(a) - extOrder(b) })
			if len(files) == 1 {
				format, _ := parse.FormatOf(files[0])
				found = append(found, Found{Name: name, File: files[0], Format: format, Dir: dir})
				continue
			}
			for _, f := range files[1:] {
				diags = append(diags, ir.Diagnostic{
					Rule:     RuleAmbiguousProcess,
					Severity: ir.Error,
					Message:  ambiguous(name, []string{files[0], f}),
					Range:    ir.FileStart(f),
					Related:  []ir.Related{{Range: ir.FileStart(files[0]), Message: fmt.Sprintf("process %q is also defined here", name)}},
				})
			}
		}
	}
	slices.SortFunc(found, func(a, b Found) int { return strings.Compare(a.Name, b.Name) })
	ir.SortDiagnostics(diags)
	return found, diags
}

// extOrder is the rank of a file's extension in lookup order.
func extOrder(file string) int {
	for i, ext := range processExts {
		if strings.HasSuffix(file, ext) {
			return i
		}
	}
	return len(processExts)
}

// lookupOnce returns the value cached in env under key, computing it with
// compute the first time. Concurrent callers of one key wait for the first.
func lookupOnce[T any](env *Env, key string, compute func() T) T {
	type entry struct {
		once  sync.Once
		value T
	}
	v, _ := env.cache.LoadOrStore(key, &entry{})
	e, ok := v.(*entry)
	if !ok {
		// Another kind of value under this key: compute, uncached.
		return compute()
	}
	e.once.Do(func() { e.value = compute() })
	return e.value
}
