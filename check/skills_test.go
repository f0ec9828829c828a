package check

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
)

// lookupEnv is an environment for lookups in repo (nil: none), with a fresh
// $CAIRN_HOME.
func lookupEnv(t *testing.T, repo *git.Repo, cfg *config.Config) *Env {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	return &Env{Home: t.TempDir(), Config: cfg, Repo: repo}
}

func TestFindSkillOrder(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	lookupWrite(t, filepath.Join(dir, ".agents/skills/both/SKILL.md"), "agents\n")
	lookupWrite(t, filepath.Join(dir, ".claude/skills/both/SKILL.md"), "claude\n")
	lookupWrite(t, filepath.Join(dir, ".claude/skills/claude-only/SKILL.md"), "claude\n")
	lookupWrite(t, filepath.Join(dir, ".claude/skills/shadowed/SKILL.md"), "claude\n")
	lookupCommit(t, dir, "skills")
	// Uncommitted skills are not what a worktree at the base would hold.
	lookupWrite(t, filepath.Join(dir, ".agents/skills/uncommitted/SKILL.md"), "draft\n")

	env := lookupEnv(t, repo, nil)
	lookupWrite(t, filepath.Join(env.Home, "skills/shadowed/SKILL.md"), "home\n")
	lookupWrite(t, filepath.Join(env.Home, "skills/home-only/SKILL.md"), "home\n")
	lookupWrite(t, filepath.Join(env.Home, "skills/cairn-repair/SKILL.md"), "home's own repair\n")
	lookupWrite(t, filepath.Join(env.Home, "skills/uncommitted/SKILL.md"), "home\n")

	for _, tc := range []struct {
		name string
		want ir.PlanSkill
	}{
		{"both", ir.PlanSkill{Name: "both", Path: ".agents/skills/both/SKILL.md", Source: ir.SkillRepo}},
		{"claude-only", ir.PlanSkill{Name: "claude-only", Path: ".claude/skills/claude-only/SKILL.md", Source: ir.SkillRepo}},
		{"shadowed", ir.PlanSkill{Name: "shadowed", Path: ".claude/skills/shadowed/SKILL.md", Source: ir.SkillRepo}},
		{"home-only", ir.PlanSkill{Name: "home-only", Path: filepath.Join(env.Home, "skills/home-only/SKILL.md"), Source: ir.SkillHome}},
		{"uncommitted", ir.PlanSkill{Name: "uncommitted", Path: filepath.Join(env.Home, "skills/uncommitted/SKILL.md"), Source: ir.SkillHome}},
		{"cairn-repair", ir.PlanSkill{Name: "cairn-repair", Path: filepath.Join(env.Home, "skills/cairn-repair/SKILL.md"), Source: ir.SkillHome}},
		{"cairn-bug-hunt", ir.PlanSkill{Name: "cairn-bug-hunt", Path: "builtin:bug-hunt", Source: ir.SkillBuiltin}},
	} {
		got, err := FindSkill(context.Background(), env, tc.name)
		if err != nil || got != tc.want {
			t.Errorf("FindSkill(%q) = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestFindSkillAtBaseCommit(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	lookupWrite(t, filepath.Join(dir, ".agents/skills/old/SKILL.md"), "old\n")
	lookupCommit(t, dir, "old skill")
	// A skill committed on another branch than the base is not there.
	lookupGit(t, dir, "checkout", "-q", "-b", "work")
	lookupWrite(t, filepath.Join(dir, ".agents/skills/new/SKILL.md"), "new\n")
	lookupCommit(t, dir, "new skill")

	env := lookupEnv(t, repo, lookupBaseBranch("main"))
	if _, err := FindSkill(context.Background(), env, "old"); err != nil {
		t.Errorf("FindSkill(old) = %v", err)
	}
	_, err := FindSkill(context.Background(), env, "new")
	if !errors.Is(err, skills.ErrSkillNotFound) {
		t.Fatalf("FindSkill(new) = %v; want skills.ErrSkillNotFound", err)
	}
	sha := lookupGit(t, dir, "rev-parse", "--short=7", "main")
	if want := "committed at main (" + sha + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q; want it to say %q", err, want)
	}
}

func TestFindSkillNotFound(t *testing.T) {
	t.Parallel()
	_, repo := lookupRepo(t)
	env := lookupEnv(t, repo, nil)
	_, err := FindSkill(context.Background(), env, "nope")
	if !errors.Is(err, skills.ErrSkillNotFound) {
		t.Fatalf("FindSkill(nope) = %v; want skills.ErrSkillNotFound", err)
	}
	msg := err.Error()
	places := []string{
		".agents/skills/nope/SKILL.md",
		".claude/skills/nope/SKILL.md",
		filepath.Join(env.Home, "skills/nope/SKILL.md"),
		"cairn's built-in skills (cairn-bug-hunt, cairn-repair)",
	}
	last := -1
	for _, p := range places {
		i := strings.Index(msg, p)
		if i <= last {
			t.Errorf("message %q; want %q after the places before it", msg, p)
		}
		last = i
	}
	if !strings.HasPrefix(msg, `skill "nope" not found; looked in `) {
		t.Errorf("message %q; want it to start with what was not found", msg)
	}

	// Outside a repository only home and the built-ins are searched.
	noRepo := lookupEnv(t, nil, nil)
	_, err = FindSkill(context.Background(), noRepo, "nope")
	if !errors.Is(err, skills.ErrSkillNotFound) || strings.Contains(err.Error(), ".agents/skills/nope") || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("FindSkill(nope) outside a repository = %v", err)
	}
	if s, err := FindSkill(context.Background(), noRepo, "cairn-repair"); err != nil || s.Source != ir.SkillBuiltin {
		t.Errorf("FindSkill(cairn-repair) outside a repository = %+v, %v", s, err)
	}
}

func TestFindSkillNames(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	env := lookupEnv(t, repo, nil)
	// A file a bad name would reach if it ever met the filesystem.
	lookupWrite(t, filepath.Join(env.Home, "x/SKILL.md"), "x\n")
	lookupWrite(t, filepath.Join(dir, ".agents/x/SKILL.md"), "x\n")
	lookupCommit(t, dir, "x")
	for _, name := range []string{"../x", "../../x", "X", "", "-x", "a/b", "repair", "cairn-", "cairn-nope"} {
		if s, err := FindSkill(context.Background(), env, name); !errors.Is(err, skills.ErrSkillNotFound) {
			t.Errorf("FindSkill(%q) = %+v, %v; want skills.ErrSkillNotFound", name, s, err)
		}
	}
}

func TestFindSkillSymlinks(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	outside := t.TempDir()
	lookupWrite(t, filepath.Join(outside, "evil/SKILL.md"), "evil\n")
	lookupWrite(t, filepath.Join(dir, "tools/skills/shared/SKILL.md"), "shared\n")
	link := func(target, path string) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// In the repository: a linked folder, a linked file, and a chain.
	link("../../tools/skills/shared", ".agents/skills/folder")
	link("../../../tools/skills/shared/SKILL.md", ".agents/skills/file/SKILL.md")
	link("folder", ".agents/skills/chain")
	link("../.agents/skills", ".claude/skills")
	// Out of it: relative and absolute, as a folder and as the file.
	link("../../../outside", ".agents/skills/up")
	link(filepath.Join(outside, "evil"), ".agents/skills/abs")
	link(filepath.Join(outside, "evil/SKILL.md"), ".agents/skills/abs-file/SKILL.md")
	link("../../..", ".agents/skills/root-parent")
	lookupCommit(t, dir, "links")

	env := lookupEnv(t, repo, nil)
	for _, name := range []string{"folder", "file", "chain"} {
		want := ir.PlanSkill{Name: name, Path: ".agents/skills/" + name + "/SKILL.md", Source: ir.SkillRepo}
		if got, err := FindSkill(context.Background(), env, name); err != nil || got != want {
			t.Errorf("FindSkill(%q) = %+v, %v; want %+v", name, got, err, want)
		}
	}
	// .claude/skills is a link to .agents/skills: a skill in neither is
	// still simply not found.
	if _, err := FindSkill(context.Background(), env, "absent"); !errors.Is(err, skills.ErrSkillNotFound) {
		t.Errorf("FindSkill(absent) = %v; want skills.ErrSkillNotFound", err)
	}
	for _, tc := range []struct{ name, link string }{
		{"up", ".agents/skills/up"},
		{"abs", ".agents/skills/abs"},
		{"abs-file", ".agents/skills/abs-file/SKILL.md"},
		{"root-parent", ".agents/skills/root-parent"},
	} {
		_, err := FindSkill(context.Background(), env, tc.name)
		if !errors.Is(err, skills.ErrSkillEscapes) {
			t.Errorf("FindSkill(%q) = %v; want skills.ErrSkillEscapes", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.link+" is a symlink that leads to ") {
			t.Errorf("FindSkill(%q) message %q; want it to name %s", tc.name, err, tc.link)
		}
	}
}

func TestFindSkillCached(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	lookupWrite(t, filepath.Join(dir, ".agents/skills/a/SKILL.md"), "a\n")
	lookupCommit(t, dir, "a")
	env := lookupEnv(t, repo, nil)
	if _, err := FindSkill(context.Background(), env, "a"); err != nil {
		t.Fatal(err)
	}
	// The answer holds for the invocation, whatever happens to the tree.
	lookupGit(t, dir, "rm", "-q", "-r", ".agents")
	lookupCommit(t, dir, "gone")
	if _, err := FindSkill(context.Background(), env, "a"); err != nil {
		t.Errorf("cached FindSkill(a) = %v", err)
	}
}
