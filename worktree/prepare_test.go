package worktree

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

// A link's target is inside the repository when it is the repository's
// root or below it; a sibling whose name starts the same is not.
func TestInside(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/repo", true},
		{"/repo/a/b", true},
		{"/repo/..a", true},
		{"/repo/../other", false},
		{"/repository", false},
		{"/", false},
		{"/elsewhere/repo", false},
	} {
		if got := inside("/repo", filepath.FromSlash(c.path)); got != c.want {
			t.Errorf("inside(%q, %q) = %v; want %v", "/repo", c.path, got, c.want)
		}
	}
}

// Prepared is what copy and setup changed: new paths, and paths whose
// state changed, not those already so before.
func TestPrepared(t *testing.T) {
	t.Parallel()
	before := map[string]string{"one.txt": "??", "main.go": " M"}
	after := map[string]string{"one.txt": "??", "main.go": " M", "bin/tool": "??", "go.sum": " M", "gone.txt": " D"}
	if got, want := Prepared(before, after), []string{"bin/tool", "go.sum", "gone.txt"}; !slices.Equal(got, want) {
		t.Errorf("Prepared = %q; want %q", got, want)
	}
	before["go.sum"] = "??"
	if got := Prepared(before, after); !slices.Contains(got, "go.sum") {
		t.Errorf("Prepared = %q; want go.sum, whose state changed", got)
	}
}

// Uncommitted is git status less the paths excluded: an untracked folder
// they fill is not work, a file beside them is.
func TestUncommitted(t *testing.T) {
	t.Parallel()
	repo, _ := testrepo.New(t)
	ctx := context.Background()
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(excluded []string, want []string) {
		t.Helper()
		got, err := Uncommitted(ctx, testGit(), repo, excluded)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Uncommitted(%q) = %q; want %q", excluded, got, want)
		}
	}
	check(nil, nil)
	write("tools/a")
	write("tools/b")
	check(nil, []string{"?? tools/"})
	check([]string{"tools/a", "tools/b"}, nil)
	check([]string{"tools/a"}, []string{"?? tools/b"})
	write("work.txt")
	check([]string{"tools/a", "tools/b"}, []string{"?? work.txt"})
}
