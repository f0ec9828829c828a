package worktree

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

func TestCommitMake(t *testing.T) {
	t.Parallel()
	root, _ := testrepo.New(t)
	ctx := context.Background()
	if err := ExcludeCairnFiles(ctx, testGit(), root); err != nil {
		t.Fatal(err)
	}
	folder := ".cairn/runs/fix_2026-01-02T030405Z"
	write := func(path, content string) { testrepo.Write(t, filepath.Join(root, filepath.FromSlash(path)), content) }
	// committed is HEAD's subject, trailers and files, a line each.
	committed := func() string {
		out := testrepo.Git(t, root, "show", "--name-only", "--format=%s%n%(trailers:only,unfold)", "HEAD")
		return strings.Join(slices.DeleteFunc(strings.Split(out, "\n"), func(l string) bool { return l == "" }), "\n")
	}

	// Nothing left: no commit.
	if made, err := (Commit{Subject: "nothing", Work: true}).Make(ctx, testGit(), root); err != nil || made {
		t.Fatalf("Make with nothing left = %v, %v; want no commit", made, err)
	}

	// The work left, without the run folder beside it nor cairn's own
	// files.
	write("fix.go", "package fix\n")
	write(folder+"/record.json", "{}\n")
	write(".cairn-issue.md", "# issue\n")
	made, err := Commit{Subject: "[cairn] Save work of step: fix", Trailers: "Cairn-Run: r\nCairn-Step: fix", Work: true}.Make(ctx, testGit(), root)
	if err != nil || !made {
		t.Fatalf("Make(work) = %v, %v; want a commit", made, err)
	}
	if got, want := committed(), "[cairn] Save work of step: fix\nCairn-Run: r\nCairn-Step: fix\nfix.go"; got != want {
		t.Errorf("commit of the work:\n%s\nwant:\n%s", got, want)
	}

	// The run folder alone: what the user staged stays staged.
	write("mine.txt", "mine\n")
	testrepo.Git(t, root, "add", "mine.txt")
	made, err = Commit{Subject: "[cairn] Complete step: fix", Trailers: "Cairn-Run: r", Folder: folder}.Make(ctx, testGit(), root)
	if err != nil || !made {
		t.Fatalf("Make(folder) = %v, %v; want a commit", made, err)
	}
	if got, want := committed(), "[cairn] Complete step: fix\nCairn-Run: r\n"+folder+"/record.json"; got != want {
		t.Errorf("commit of the folder:\n%s\nwant:\n%s", got, want)
	}
	if got := testrepo.Git(t, root, "diff", "--cached", "--name-only"); got != "mine.txt" {
		t.Errorf("staged after a commit of the folder alone: %q, want mine.txt", got)
	}
	// and with nothing new in it, none.
	if made, err := (Commit{Subject: "again", Folder: folder}).Make(ctx, testGit(), root); err != nil || made {
		t.Errorf("Make(folder) again = %v, %v; want no commit", made, err)
	}

	// Work and folder together: one commit of both.
	write("fix.go", "package fix // v2\n")
	write(folder+"/record.json", "{\"v\":2}\n")
	made, err = Commit{Subject: "[cairn] Complete step: both", Trailers: "Cairn-Run: r", Work: true, Folder: folder}.Make(ctx, testGit(), root)
	if err != nil || !made {
		t.Fatalf("Make(work and folder) = %v, %v; want a commit", made, err)
	}
	if got, want := committed(), "[cairn] Complete step: both\nCairn-Run: r\n"+folder+"/record.json\nfix.go\nmine.txt"; got != want {
		t.Errorf("commit of both:\n%s\nwant:\n%s", got, want)
	}
}
