package stubs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// ReadResults reads the result_file of each attempt of s, taken from the
// folder of s.File, as the attempt's result. Only a file inside repo, the
// root of the working tree the run is in, is read, as named and through
// its symbolic links, at the moment it is opened too
// (source.ReadFileInside): a stubs file cannot show a run, or commit, what
// lies outside. Each file it does not read is an invalid-value error at
// its result_file, in file order.
func (s *Stubs) ReadResults(repo string) []ir.Diagnostic {
	var diags []ir.Diagnostic
	dir := filepath.Dir(s.File)
	for _, st := range s.Steps {
		for i := range st.Attempts {
			a := &st.Attempts[i]
			f := a.ResultFile
			if !f.Set || f.Bad {
				continue
			}
			b, err := source.ReadFileInside(filepath.Join(dir, filepath.FromSlash(f.Value)), repo)
			if err != nil {
				msg := fmt.Sprintf("cannot read result_file %q: %v", f.Value, why(err))
				if errors.Is(err, source.ErrOutside) {
					msg += "; name a file inside the repository"
				}
				diags = append(diags, ir.Diagnostic{Rule: ir.RuleInvalidValue, Severity: ir.Error, Range: f.Range, Message: msg})
				continue
			}
			a.Result = string(b)
		}
	}
	ir.SortDiagnostics(diags)
	return diags
}

// why is the reason of a read that failed, without the path the user did
// not write.
func why(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
