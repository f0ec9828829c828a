package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// lookupGit runs git in dir and returns its trimmed output.
func lookupGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// lookupWrite writes content to path, making its folders.
func lookupWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lookupCommit commits everything in dir and returns the commit's SHA.
func lookupCommit(t *testing.T, dir, msg string) string {
	t.Helper()
	lookupGit(t, dir, "add", "-A")
	lookupGit(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return lookupGit(t, dir, "rev-parse", "HEAD")
}

// lookupRepo makes a repository on branch main with one commit.
func lookupRepo(t *testing.T) (string, *git.Repo) {
	t.Helper()
	dir := t.TempDir()
	lookupGit(t, dir, "init", "-q", "-b", "main")
	lookupWrite(t, filepath.Join(dir, "README"), "hello\n")
	lookupCommit(t, dir, "start")
	repo, err := git.Discover(context.Background(), git.New(os.Environ()), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

// lookupBaseBranch is a config whose base_branch is name.
func lookupBaseBranch(name string) *config.Config {
	return &config.Config{BaseBranch: ir.Field[string]{Value: name, Set: true}}
}

// lookupProcessPath is a config whose process_path holds dirs.
func lookupProcessPath(dirs ...string) *config.Config {
	var s ir.Strings
	s.Set = true
	for _, d := range dirs {
		s.Value = append(s.Value, ir.Field[string]{Value: d, Set: true})
	}
	return &config.Config{ProcessPath: s}
}

const lookupProcessFile = "version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n"

// lookupFolders makes the three folders of a lookup test: $CAIRN_HOME's
// processes, the repository's _config/procedures and an absolute folder.
func lookupFolders(t *testing.T) (env *Env, home, inRepo, abs string) {
	t.Helper()
	dir, repo := lookupRepo(t)
	abs = t.TempDir()
	env = lookupEnv(t, repo, lookupProcessPath("_config/procedures", abs, "missing"))
	return env, filepath.Join(env.Home, "processes"), filepath.Join(dir, "_config", "procedures"), abs
}

func TestProcessDirs(t *testing.T) {
	t.Parallel()
	env, home, inRepo, abs := lookupFolders(t)
	want := []string{home, inRepo, abs, filepath.Join(env.Repo.Root, "missing")}
	if got := ProcessDirs(env); !slices.Equal(got, want) {
		t.Errorf("ProcessDirs() = %q; want %q", got, want)
	}
	env.Repo = nil
	if got := ProcessDirs(env); !slices.Equal(got, []string{home, abs}) {
		t.Errorf("ProcessDirs() outside a repository = %q; want %q", got, []string{home, abs})
	}
}

func TestFindByName(t *testing.T) {
	t.Parallel()
	env, home, inRepo, abs := lookupFolders(t)
	for _, f := range []string{
		filepath.Join(inRepo, "review.toml"),
		filepath.Join(abs, "review.toml"),
		filepath.Join(home, "intake.procedure.card"),
		filepath.Join(inRepo, "intake.toml"),
		filepath.Join(abs, "deploy.hcl"),
		filepath.Join(inRepo, "notes.md"),
	} {
		lookupWrite(t, f, lookupProcessFile)
	}
	for _, tc := range []struct{ arg, want string }{
		{"review", filepath.Join(inRepo, "review.toml")},
		{"intake", filepath.Join(home, "intake.procedure.card")},
		{"deploy", filepath.Join(abs, "deploy.hcl")},
	} {
		got, diags := Find(env, tc.arg)
		if got != tc.want || len(diags) != 0 {
			t.Errorf("Find(%q) = %q, %v; want %q", tc.arg, got, diags, tc.want)
		}
	}

	got, diags := Find(env, "reveiw")
	if got != "" || len(diags) != 1 {
		t.Fatalf("Find(reveiw) = %q, %v; want one diagnostic", got, diags)
	}
	d := diags[0]
	want := `no process named "reveiw"; looked in ` + strings.Join(ProcessDirs(env), ", ") + ` (did you mean "review"?)`
	if d.Rule != RuleUnknownProcess || d.Severity != ir.Error || d.Range.File != "" || d.Message != want {
		t.Errorf("Find(reveiw) = %+v; want %s [%s] with no file", d, want, RuleUnknownProcess)
	}
}

func TestFindPath(t *testing.T) {
	t.Parallel()
	env, _, _, abs := lookupFolders(t)
	file := filepath.Join(abs, "anything.toml")
	lookupWrite(t, file, lookupProcessFile)
	if got, diags := Find(env, file); got != file || diags != nil {
		t.Errorf("Find(%q) = %q, %v", file, got, diags)
	}
	for _, arg := range []string{filepath.Join(abs, "nope.toml"), "nope.toml", "./nope", abs} {
		got, diags := Find(env, arg)
		if got != "" || len(diags) != 1 || diags[0].Message != `no process file "`+arg+`"` || diags[0].Range.File != "" {
			t.Errorf("Find(%q) = %q, %+v; want no process file", arg, got, diags)
		}
	}
}

func TestFindAmbiguous(t *testing.T) {
	t.Parallel()
	env, home, inRepo, _ := lookupFolders(t)
	lookupWrite(t, filepath.Join(inRepo, "review.toml"), lookupProcessFile)
	lookupWrite(t, filepath.Join(inRepo, "review.hcl"), lookupProcessFile)
	// A later folder's file does not break the tie.
	got, diags := Find(env, "review")
	want := `process "review" is ambiguous: "` + filepath.Join(inRepo, "review.toml") + `" and "` + filepath.Join(inRepo, "review.hcl") + `" are in one folder; remove one`
	if got != "" || len(diags) != 1 || diags[0].Rule != RuleAmbiguousProcess || diags[0].Message != want || diags[0].Range.File != "" {
		t.Errorf("Find(review) = %q, %+v; want %s", got, diags, want)
	}
	// An earlier folder's file shadows the ambiguity.
	lookupWrite(t, filepath.Join(home, "review.toml"), lookupProcessFile)
	env.cache.Clear()
	if got, diags := Find(env, "review"); got != filepath.Join(home, "review.toml") || diags != nil {
		t.Errorf("Find(review) = %q, %v; want the home file", got, diags)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	env, home, inRepo, abs := lookupFolders(t)
	for _, f := range []string{
		filepath.Join(home, "zeta.toml"),
		filepath.Join(home, "review.hcl"),
		filepath.Join(inRepo, "review.toml"), // shadowed by home's
		filepath.Join(inRepo, "both.toml"),
		filepath.Join(inRepo, "both.procedure.card"),
		filepath.Join(abs, "both.toml"), // shadowed by the ambiguous name
		filepath.Join(abs, "intake.procedure.card"),
		filepath.Join(abs, "README.md"),
	} {
		lookupWrite(t, f, lookupProcessFile)
	}
	found, diags := List(env)
	want := []Found{
		{Name: "intake", File: filepath.Join(abs, "intake.procedure.card"), Format: ir.Card, Dir: abs},
		{Name: "review", File: filepath.Join(home, "review.hcl"), Format: ir.HCL, Dir: home},
		{Name: "zeta", File: filepath.Join(home, "zeta.toml"), Format: ir.TOML, Dir: home},
	}
	if !slices.Equal(found, want) {
		t.Errorf("List() = %+v\nwant %+v", found, want)
	}
	if len(diags) != 1 {
		t.Fatalf("List() diagnostics = %+v; want one", diags)
	}
	d := diags[0]
	first, second := filepath.Join(inRepo, "both.toml"), filepath.Join(inRepo, "both.procedure.card")
	if d.Rule != RuleAmbiguousProcess || d.Range != ir.FileStart(second) || len(d.Related) != 1 || d.Related[0].Range != ir.FileStart(first) {
		t.Errorf("List() diagnostic = %+v; want ambiguous-process at %s related to %s", d, second, first)
	}
}
