package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
)

// ruleAmbiguousProcess refuses a process file in one of the process folders
// when another file of its folder has the same process name: lookup by name
// could not tell which one to run. A file elsewhere is only ever named by its
// path, which is simply read (docs/design.md §5), so its siblings do not matter.
var ruleAmbiguousProcess = &Rule{
	ID:       RuleAmbiguousProcess,
	Doc:      "two files of one process name in one folder",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		p := pass.Process
		dir := filepath.Dir(p.File)
		if !isProcessDir(pass.Env, dir) {
			return
		}
		own := filepath.Base(p.File)
		for _, ext := range processExts {
			sibling := p.Name + ext
			if sibling == own {
				continue
			}
			path := filepath.Join(dir, sibling)
			if fi, err := os.Stat(workdir.Path(pass.Env.Dir, path)); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			pass.ReportRelated(ir.FileStart(p.File),
				[]ir.Related{{Range: ir.FileStart(path), Message: fmt.Sprintf("process %q is also defined here", p.Name)}},
				"%s", ambiguous(p.Name, []string{p.File, path}))
		}
	},
}

// isProcessDir reports whether dir is one of ProcessDirs, however either is
// spelled. The answer for a folder, and the process folders resolved, are
// looked up once an invocation: each file of a folder asks the same.
func isProcessDir(env *Env, dir string) bool {
	return lookupOnce(env, "process-dir:"+dir, func() bool {
		dirs := lookupOnce(env, "process-dirs", func() []string {
			var real []string
			for _, d := range ProcessDirs(env) {
				real = append(real, realDir(env, d))
			}
			return real
		})
		return slices.Contains(dirs, realDir(env, dir))
	})
}

// realDir is d, taken from env's directory, with its symlinks resolved where
// it exists, as an absolute path.
func realDir(env *Env, d string) string {
	d = workdir.Path(env.Dir, d)
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	return absPath("", d)
}
