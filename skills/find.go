package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
)

// The ways Finder.Find fails. The errors it returns wrap one of them and say,
// in one line, where it looked or where the skill leads.
var (
	ErrSkillNotFound = errors.New("skill not found")
	ErrSkillEscapes  = errors.New("skill resolves outside the repository")
)

// BuiltinSkillPrefix is the shorthand that names a skill built into cairn:
// "cairn-repair" is the built-in "repair".
const BuiltinSkillPrefix = "cairn-"

// repoSkillDirs are the folders of a repository's committed skills, in
// lookup order (docs/design.md §5).
var repoSkillDirs = []string{".agents/skills", ".claude/skills"}

// skillError is a Find failure: a one-line message for the user that
// unwraps to ErrSkillNotFound or ErrSkillEscapes, and the name of a skill
// Find would find that the message suggests, if any.
type skillError struct {
	kind       error
	msg        string
	suggestion string
}

func (e *skillError) Error() string { return e.msg }
func (e *skillError) Unwrap() error { return e.kind }

// Suggestion is the skill a Find failure suggests ("did you mean"), or ""
// when it suggests none.
func Suggestion(err error) string {
	if e, ok := errors.AsType[*skillError](err); ok {
		return e.suggestion
	}
	return ""
}

// foundSkill is a Find answer as cached.
type foundSkill struct {
	skill ir.PlanSkill
	err   error
}

// Finder finds the skills of session steps for one invocation of cairn,
// caching its answers: the repository's are read once, at its base commit.
type Finder struct {
	// Home is $CAIRN_HOME; Dir the directory cairn works in (-C), which a
	// relative Home is taken from.
	Home, Dir string
	// Repo is the repository (nil outside one); Base the branch its base
	// commit is read from ("" for its default).
	Repo *git.Repo
	Base string

	cache sync.Map
	tree  sync.Once
	repo  *skillTree
}

// Find finds the SKILL.md of a session step's skill (docs/design.md §5): the
// repository's committed .agents/skills/NAME/SKILL.md, then
// .claude/skills/NAME/SKILL.md, both read at the base commit and refused
// (ErrSkillEscapes) when a symlink on the way leads outside the repository;
// then $CAIRN_HOME/skills/NAME/SKILL.md; then, for "cairn-NAME", the built-in
// skill NAME. A name that does not match [a-z0-9][a-z0-9-]* is never looked
// up. Answers are cached: the git that reads the repository's runs once,
// with the first caller's ctx.
func (f *Finder) Find(ctx context.Context, name string) (ir.PlanSkill, error) {
	type entry struct {
		once  sync.Once
		found foundSkill
	}
	v, _ := f.cache.LoadOrStore(name, &entry{})
	e := v.(*entry)
	e.once.Do(func() {
		s, err := f.find(ctx, name)
		e.found = foundSkill{s, err}
	})
	return e.found.skill, e.found.err
}

func (f *Finder) find(ctx context.Context, name string) (ir.PlanSkill, error) {
	if !ir.ValidName(name) {
		return ir.PlanSkill{}, &skillError{kind: ErrSkillNotFound, msg: fmt.Sprintf("skill %q not found: skill names match [a-z0-9][a-z0-9-]*", name)}
	}
	var looked []string
	note := ""
	if f.Repo == nil {
		note = "; the repository's skills were not searched: not in a git repository"
	} else {
		tree := f.skillTree(ctx)
		if tree.err != nil {
			note = fmt.Sprintf("; the repository's skills were not searched: %v", tree.err)
		} else {
			s, err := tree.find(ctx, f.Repo, name)
			if err != nil || s.Path != "" {
				return s, err
			}
			looked = append(looked, fmt.Sprintf("%s/%s/SKILL.md and %s/%s/SKILL.md committed at %s (%.7s)",
				repoSkillDirs[0], name, repoSkillDirs[1], name, tree.branch, tree.sha))
		}
	}
	if f.Home != "" {
		p := filepath.Join(f.Home, "skills", name, "SKILL.md")
		if abs, err := workdir.Abs(f.Dir, p); err == nil {
			p = abs
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return ir.PlanSkill{Name: name, Path: p, Source: ir.SkillHome}, nil
		}
		looked = append(looked, p)
	}
	if builtin, ok := strings.CutPrefix(name, BuiltinSkillPrefix); ok {
		if _, ok := Get(builtin); ok {
			return ir.PlanSkill{Name: name, Path: "builtin:" + builtin, Source: ir.SkillBuiltin}, nil
		}
	}
	var builtins []string
	for _, b := range Names() {
		builtins = append(builtins, BuiltinSkillPrefix+b)
	}
	looked = append(looked, fmt.Sprintf("cairn's built-in skills (%s)", strings.Join(builtins, ", ")))
	s := f.suggest(ctx, name)
	if s != "" {
		note += fmt.Sprintf("; did you mean %q?", s)
	}
	return ir.PlanSkill{}, &skillError{kind: ErrSkillNotFound, msg: fmt.Sprintf("skill %q not found; looked in %s%s", name, strings.Join(looked, ", then "), note), suggestion: s}
}

// suggest returns the name of a skill Find would find that is close to
// name, or "": the repository's committed skills, then $CAIRN_HOME's, then
// the built-in ones, which are also matched without their "cairn-" prefix
// (a step naming "bug-hunt" is told of "cairn-bug-hunt").
func (f *Finder) suggest(ctx context.Context, name string) string {
	var names []string
	if f.Repo != nil {
		if t := f.skillTree(ctx); t.err == nil {
			for path := range t.modes {
				for _, dir := range repoSkillDirs {
					if rest, ok := strings.CutPrefix(path, dir+"/"); ok {
						if skill, ok := strings.CutSuffix(rest, "/SKILL.md"); ok && !strings.Contains(skill, "/") {
							names = append(names, skill)
						}
					}
				}
			}
			slices.Sort(names)
		}
	}
	if f.Home != "" {
		dir := filepath.Join(f.Home, "skills")
		if abs, err := workdir.Abs(f.Dir, dir); err == nil {
			dir = abs
		}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				if fi, err := os.Stat(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil && fi.Mode().IsRegular() {
					names = append(names, e.Name())
				}
			}
		}
	}
	if s := ir.Suggest(name, names); s != "" {
		return s
	}
	builtins := Names()
	if s := ir.Suggest(strings.TrimPrefix(name, BuiltinSkillPrefix), builtins); s != "" {
		return BuiltinSkillPrefix + s
	}
	return ""
}

// skillTree is what the repository's committed skill folders hold at the
// base commit: every file under .agents and .claude with its git mode, read
// by one git process per invocation.
type skillTree struct {
	branch, sha string
	// modes maps each path under .agents and .claude to its git mode
	// ("100644", "120000" for a symlink, "160000" for a submodule).
	modes map[string]string
	err   error
}

// skillTree lists the repository's skill folders at the base commit, once.
func (f *Finder) skillTree(ctx context.Context) *skillTree {
	f.tree.Do(func() {
		t := &skillTree{modes: map[string]string{}}
		f.repo = t
		t.branch, t.sha, t.err = f.Repo.Base(ctx, f.Base)
		if t.err != nil {
			return
		}
		out, err := f.Repo.Run(ctx, "ls-tree", "-r", "-z", t.sha, "--", ".agents", ".claude")
		if err != nil {
			t.err = fmt.Errorf("read the committed skills at %.7s: %w", t.sha, err)
			return
		}
		for _, entry := range strings.Split(out, "\x00") {
			// "MODE TYPE OBJECT\tPATH"
			meta, path, ok := strings.Cut(entry, "\t")
			if !ok {
				continue
			}
			if mode, _, ok := strings.Cut(meta, " "); ok {
				t.modes[path] = mode
			}
		}
	})
	return f.repo
}

// find looks name up in the repository's skill folders, in order. It returns
// a zero PlanSkill and no error when neither holds it.
func (t *skillTree) find(ctx context.Context, repo *git.Repo, name string) (ir.PlanSkill, error) {
	for _, dir := range repoSkillDirs {
		path := dir + "/" + name + "/SKILL.md"
		link, present := t.walk(path)
		if link == "" {
			if present {
				return ir.PlanSkill{Name: name, Path: path, Source: ir.SkillRepo}, nil
			}
			continue
		}
		ok, escape, err := followSkill(ctx, repo, t.sha, path)
		switch {
		case err != nil:
			return ir.PlanSkill{}, &skillError{kind: ErrSkillNotFound, msg: fmt.Sprintf("skill %q not found: %v", name, err)}
		case escape != "":
			return ir.PlanSkill{}, &skillError{kind: ErrSkillEscapes, msg: fmt.Sprintf("skill %q resolves outside the repository: %s is a symlink that leads to %q; a committed skill must stay inside the repository", name, link, escape)}
		case ok:
			return ir.PlanSkill{Name: name, Path: path, Source: ir.SkillRepo}, nil
		}
	}
	return ir.PlanSkill{}, nil
}

// walk returns the first symlink on path (a folder above it, or path
// itself), which git must follow, or "" and whether path is a committed file.
func (t *skillTree) walk(path string) (link string, present bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && t.modes[path[:i]] == "120000" {
			return path[:i], false
		}
	}
	switch t.modes[path] {
	case "120000":
		return path, false
	case "100644", "100755":
		return "", true
	}
	return "", false
}

// followSkill asks git to follow the symlinks on path at commit sha, each
// resolved relative to its place in the tree. It reports whether path leads
// to a file inside the repository, or, when it leads outside, where to.
func followSkill(ctx context.Context, repo *git.Repo, sha, path string) (ok bool, escape string, err error) {
	out, err := repo.Git.RunInput(ctx, repo.Root, sha+":"+path+"\n", "cat-file", "--batch-check", "--follow-symlinks")
	if err != nil {
		return false, "", fmt.Errorf("follow the symlinks of %s: %w", path, err)
	}
	// Found: "OID TYPE SIZE". Outside the tree: "symlink SIZE\nTARGET". Else
	// "QUERY missing", or "dangling|loop|notdir SIZE\nQUERY".
	first, rest, _ := strings.Cut(strings.TrimRight(out, "\n"), "\n")
	f := strings.Fields(first)
	switch {
	case len(f) == 3 && f[1] == "blob":
		return true, "", nil
	case len(f) == 2 && f[0] == "symlink":
		return false, rest, nil
	}
	return false, "", nil
}
