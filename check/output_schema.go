package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/output"
)

// outputProblem is what is wrong with a step's output_schema, and where.
type outputProblem struct {
	at      ir.Range
	message string
}

// outputSchema resolves step s's output_schema: the schema as canonical
// JSON and where it was written (nil when the step declares none), and
// what is wrong with it, each at the smallest place at fault: a keyword
// outside output.Keywords, a value its draft's metaschema refuses, a path
// that names no file cairn reads safely inside repo ("" when there is no
// repository: the path is not read).
func outputSchema(s *ir.Step, repo string) (*ir.PlanOutput, []outputProblem) {
	f := s.Keys().OutputSchema
	if !f.Set || f.Bad || f.Value == nil {
		return nil, nil
	}
	v := f.Value
	if v.Kind != ir.JSONString {
		out := &ir.PlanOutput{Schema: output.Canonical(v), Source: ir.OutputInline}
		var probs []outputProblem
		for _, p := range output.Check(out.Schema) {
			probs = append(probs, outputProblem{at: pointerRange(v, p), message: p.Message})
		}
		return out, probs
	}
	at := valueRange(f)
	name := v.Str
	if msg := schemaPathProblem(name); msg != "" {
		return nil, []outputProblem{{at: at, message: msg}}
	}
	if repo == "" {
		return &ir.PlanOutput{Source: name}, nil
	}
	b, err := source.ReadFileInside(filepath.Join(repo, filepath.FromSlash(name)), repo)
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			err = perr.Err
		}
		return nil, []outputProblem{{at: at, message: fmt.Sprintf("output_schema: cannot read %q: %v", name, err)}}
	}
	schema, err := output.CanonicalJSON(b)
	if err != nil {
		return nil, []outputProblem{{at: at, message: fmt.Sprintf("output_schema: %q is not JSON: %v", name, err)}}
	}
	out := &ir.PlanOutput{Schema: schema, Source: name}
	var probs []outputProblem
	for _, p := range output.Check(schema) {
		msg := p.Message
		if p.Pointer != "" {
			msg = fmt.Sprintf("%s (in %q at %s)", msg, name, p.Pointer)
		} else {
			msg = fmt.Sprintf("%s (in %q)", msg, name)
		}
		probs = append(probs, outputProblem{at: at, message: msg})
	}
	return out, probs
}

// schemaPathProblem says why name cannot be the path of a schema file,
// "" when it can: a path relative to the repository's root, inside it, of
// a .json file.
func schemaPathProblem(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "output_schema: the path is empty; name a .json file in the repository, or write the schema inline"
	case strings.ContainsRune(name, 0):
		return "output_schema: the path holds a NUL byte"
	case path.IsAbs(name) || filepath.IsAbs(name) || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "":
		return fmt.Sprintf("output_schema: %q is an absolute path; name a .json file relative to the repository's root", name)
	case slices.Contains(strings.Split(filepath.ToSlash(name), "/"), ".."):
		return fmt.Sprintf("output_schema: %q leads out of the repository through \"..\"; name a .json file relative to the repository's root", name)
	case !strings.HasSuffix(name, ".json"):
		return fmt.Sprintf("output_schema: %q is not a .json file; name a .json file in the repository, or write the schema inline", name)
	}
	return ""
}

// pointerRange is where the part of v at p's pointer is written: its key
// for a keyword, its value else; the deepest part found when the pointer
// leads where nothing is written.
func pointerRange(v *ir.JSONValue, p output.Problem) ir.Range {
	at := v.Range
	cur := v
	toks := output.Tokens(p.Pointer)
	for i, tok := range toks {
		var next *ir.JSONValue
		var key ir.Range
		switch cur.Kind {
		case ir.JSONObject:
			for _, m := range cur.Members {
				if m.Name == tok {
					next, key = m.Value, m.Key
				}
			}
		case ir.JSONArray:
			var n int
			if _, err := fmt.Sscanf(tok, "%d", &n); err == nil && n >= 0 && n < len(cur.Items) {
				next = cur.Items[n]
			}
		}
		if next == nil {
			return at
		}
		cur, at = next, next.Range
		if i == len(toks)-1 && p.Keyword && key.IsValid() {
			return key
		}
	}
	return at
}

// repoRoot is the root of env's repository, "" outside one.
func repoRoot(env *Env) string {
	if env == nil || env.Repo == nil {
		return ""
	}
	return env.Repo.Root
}

// outputSchema refuses what is wrong with s's output_schema.
func (v *values) outputSchema(s *ir.Step) {
	_, probs := outputSchema(s, repoRoot(v.pass.Env))
	for _, p := range probs {
		v.report(p.at, "%s", p.message)
	}
}
