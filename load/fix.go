package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/cairn-dev/cairn/internal/atomicfile"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/views"
)

// FixAndCheck applies the fixes of r, ws.Check's report of targets and
// issue, to their files (see Fix) and, when it changed any, checks the
// targets again in a workspace opened anew, whose report it returns with
// what it did.
func (ws *Workspace) FixAndCheck(ctx context.Context, r *views.Report, targets []string, issue string) (*views.Report, *views.Fixed) {
	fixed := ws.Fix(r)
	if fixed.Files > 0 {
		r = open(ws.dir, ws.opts, ws.Env.Repo).Check(ctx, targets, issue)
	}
	refused := map[string]bool{}
	for _, n := range fixed.NotFixed {
		refused[n.File] = true
	}
	for _, d := range r.Diagnostics {
		if len(d.Fixes) > 0 && !refused[d.Range.File] {
			fixed.Left++
		}
	}
	return r, fixed
}

// Fix applies the first fix of each diagnostic of r whose edits overlap
// none of a fix applied before it, in the report's order, in one pass: a
// fix left out is there to apply when the file is checked again. It
// writes only files inside the repository (as named, and through their
// symbolic links, whose target it writes), each whole or not at all, and
// only while it holds the text that was checked.
func (ws *Workspace) Fix(r *views.Report) *views.Fixed {
	type file struct {
		edits   []ir.Edit
		applied []views.Applied
	}
	files := map[string]*file{}
	var order []string
	for _, d := range r.Diagnostics {
		if len(d.Fixes) == 0 {
			continue
		}
		fix := d.Fixes[0]
		name := fixFile(fix)
		if _, ok := r.Sources[name]; !ok || name == "" {
			continue
		}
		f := files[name]
		if f == nil {
			f = &file{}
			files[name] = f
			order = append(order, name)
		}
		switch {
		case applied(f.edits, fix.Edits):
			// The fix of another finding made these edits already (a
			// group renamed in each of its steps).
			f.applied = append(f.applied, views.Applied{Diagnostic: d, Fix: fix})
		case !overlaps(f.edits, fix.Edits):
			f.edits = append(f.edits, fix.Edits...)
			f.applied = append(f.applied, views.Applied{Diagnostic: d, Fix: fix})
		}
	}
	out := &views.Fixed{}
	for _, name := range order {
		f := files[name]
		if err := ws.rewrite(name, r.Sources[name], f.edits); err != nil {
			out.NotFixed = append(out.NotFixed, views.NotFixed{File: name, Reason: err.Error()})
			continue
		}
		out.Applied = append(out.Applied, f.applied...)
		out.Files++
	}
	return out
}

// fixFile is the one file fix edits, "" when it edits none or several.
func fixFile(fix ir.Fix) string {
	if len(fix.Edits) == 0 {
		return ""
	}
	name := fix.Edits[0].Range.File
	for _, e := range fix.Edits {
		if e.Range.File != name {
			return ""
		}
	}
	return name
}

// applied reports whether every edit of add is one of done.
func applied(done, add []ir.Edit) bool {
	for _, e := range add {
		found := false
		for _, d := range done {
			if d == e {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// overlaps reports whether an edit of add overlaps one of done, or starts
// where it does (which of two insertions goes first would be a guess).
func overlaps(done, add []ir.Edit) bool {
	for _, e := range add {
		for _, d := range done {
			es, ee := e.Range.Start.Offset, e.Range.End.Offset
			ds, de := d.Range.Start.Offset, d.Range.End.Offset
			if es < de && ds < ee || es == ds {
				return true
			}
		}
	}
	return false
}

// errNoRepository is why no file is fixed outside a repository.
var errNoRepository = errors.New("not in a git repository: cairn check --fix writes only inside one")

// rewrite makes edits to the file name, which held text when it was
// checked: it reads the file as it is on disk (inside the repository, as
// named and once its links are resolved, a regular file), makes sure it
// still reads as text, and replaces the file its links lead to whole.
func (ws *Workspace) rewrite(name string, text []byte, edits []ir.Edit) error {
	if ws.Env.Repo == nil {
		return errNoRepository
	}
	raw, real, err := source.ReadRawInside(workdir.Path(ws.Env.Dir, name), ws.Env.Repo.Root)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, source.ErrOutside) {
			return fmt.Errorf("%w; cairn check --fix writes only inside it", err)
		}
		return err
	}
	if !bytes.Equal(source.Text(raw), text) {
		return errors.New("it changed since it was checked; check it again")
	}
	out, err := textedit.Apply(raw, edits)
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(real, out, 0o644); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
