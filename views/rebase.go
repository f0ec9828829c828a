package views

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/workdir"
)

// Rebased is r with every diagnostic's file, and every related place's and
// fix's, relative to root, the top of a repository's working tree, as code scanning
// and GitHub's annotations map them: cairn names files as they were given,
// relative to dir, the directory it works in ("" for the process's working
// directory), which may be a subfolder. A file outside root keeps its
// absolute path. With no root, r is returned as is.
func (r *Report) Rebased(root, dir string) *Report {
	if root == "" {
		return r
	}
	out := *r
	out.Diagnostics = slices.Clone(r.Diagnostics)
	for i := range out.Diagnostics {
		d := &out.Diagnostics[i]
		d.Range.File = rootRelative(root, dir, d.Range.File)
		if len(d.Related) > 0 {
			d.Related = slices.Clone(d.Related)
			for j := range d.Related {
				d.Related[j].Range.File = rootRelative(root, dir, d.Related[j].Range.File)
			}
		}
		if len(d.Fixes) > 0 {
			d.Fixes = slices.Clone(d.Fixes)
			for j := range d.Fixes {
				f := &d.Fixes[j]
				f.Edits = slices.Clone(f.Edits)
				for k := range f.Edits {
					f.Edits[k].Range.File = rootRelative(root, dir, f.Edits[k].Range.File)
				}
			}
		}
	}
	return &out
}

// rootRelative is file, named relative to dir, relative to root when it lies
// inside it, else file made absolute.
func rootRelative(root, dir, file string) string {
	if file == "" {
		return file
	}
	abs, err := workdir.Abs(dir, file)
	if err != nil {
		return file
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	if realRoot, err := filepath.EvalSymlinks(root); err == nil {
		root = realRoot
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
