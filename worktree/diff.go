package worktree

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/internal/git"
)

// MaxDiff is how much of a step's diff a judge's prompt holds; the prompt
// says when the diff was cut.
const MaxDiff = 200 << 10

// DiffLimit words MaxDiff for the judge's prompt.
const DiffLimit = "200 KiB"

// cairnPaths are the pathspecs that keep cairn's own files (its run
// folders and copied skills under .cairn/, the issue file) out of a step's
// diff.
var cairnPaths = []string{":(exclude).cairn", ":(exclude).cairn-issue.md"}

// Diff returns everything a step changed in the worktree dir since
// baseline (a commit; "" in a repository that had none): the commits made
// since, what is left uncommitted and the untracked files, as one git diff,
// without cairn's own files. It reads the worktree through a temporary
// index and never touches the worktree's own; git runs through g. The diff
// is cut at limit bytes (at a line's end), and cut reports whether it was.
func Diff(ctx context.Context, g *git.Git, dir, baseline string, limit int) (diff string, cut bool, err error) {
	path, err := g.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", false, err
	}
	own := strings.TrimSpace(path)
	// The temporary index is made in the git dir: in the working tree (a
	// TMPDIR inside it) it would be part of the diff.
	tmp, err := os.MkdirTemp(filepath.Dir(own), "cairn-index-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	// Starting from the worktree's own index lets git add skip the files
	// whose stat data has not changed; without it git hashes every file.
	_ = copyFile(own, index)
	indexed := g.With("GIT_INDEX_FILE=" + index)
	// Only the folder is left out here: naming a file git ignores (as the
	// issue file is, once cairn wrote it) makes git add fail; the diff
	// below leaves out every path of cairn's.
	if _, err := indexed.Run(ctx, dir, "add", "--all", "--", ".", cairnPaths[0]); err != nil {
		return "", false, err
	}
	base := baseline
	if base == "" {
		// The empty tree, in the repository's own object format.
		out, err := g.RunInput(ctx, dir, "", "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			return "", false, err
		}
		base = strings.TrimSpace(out)
	}
	// The user's diff settings must not change what the judge reads.
	args := append([]string{"diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
		"--submodule=short", "--src-prefix=a/", "--dst-prefix=b/", base, "--", "."}, cairnPaths...)
	out := &capped{max: limit}
	if err := indexed.Stream(ctx, dir, out, args...); err != nil {
		return "", false, err
	}
	if !out.over {
		return out.buf.String(), false, nil
	}
	b := out.buf.Bytes()
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	return strings.ToValidUTF8(string(b), ""), true, nil
}

// capped keeps the first max bytes written to it and notes whether more
// came.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}
