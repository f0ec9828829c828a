package forge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
)

// ClaimRef is the ref on origin that holds the Claim on issue number (docs/design.md §7.8).
func ClaimRef(number int) string { return fmt.Sprintf("refs/cairn/claims/%d", number) }

// Holder is who holds a Claim: a run of cairn on a host, its process, and
// its run folder (whose lock tells whether the run still runs).
type Holder struct {
	Host   string
	Run    string
	PID    int
	Folder string
}

// String names the holder in messages.
func (h Holder) String() string {
	return fmt.Sprintf("run %q on host %q (pid %d)", h.Run, h.Host, h.PID)
}

// message is the claim commit's message, naming the holder, one "key:
// value" line each.
func (h Holder) message(number int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn claim on issue #%d\n\n", number)
	fmt.Fprintf(&b, "host: %s\nrun: %s\npid: %d\n", singleLine(h.Host), singleLine(h.Run), h.PID)
	if h.Folder != "" && !strings.ContainsAny(h.Folder, "\n\r") {
		fmt.Fprintf(&b, "folder: %s\n", h.Folder)
	}
	return b.String()
}

// parseHolder reads a claim commit's message back.
func parseHolder(msg string) Holder {
	var h Holder
	for _, line := range strings.Split(msg, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case "host":
			h.Host = v
		case "run":
			h.Run = v
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "folder":
			h.Folder = v
		}
	}
	return h
}

// Claim is a run's hold on an issue: the commit it pushed to ClaimRef on
// origin.
type Claim struct {
	Number int
	Holder Holder
	// Commit is the claim commit, which Release checks is still the ref's.
	Commit string

	repo *git.Repo
}

// ClaimedError is the refusal of a Claim another run holds.
type ClaimedError struct {
	Number int
	Holder Holder
	Since  time.Time
	// Stale is set when the holder is known to have stopped: it ran on
	// this host and neither its process nor its run folder's lock is
	// alive. --take-over replaces only such a claim.
	Stale bool
	// Local is set when the holder ran on this host, so Stale could be
	// told.
	Local bool
}

// Error says who holds the claim, since when, and what the user can do.
func (e *ClaimedError) Error() string {
	since := ""
	if !e.Since.IsZero() {
		since = " since " + e.Since.UTC().Format(time.RFC3339)
	}
	switch {
	case e.Stale:
		return fmt.Sprintf("issue #%d is claimed by %s%s, which no longer runs; pass --take-over to take the claim over", e.Number, e.Holder, since)
	case e.Local:
		return fmt.Sprintf("issue #%d is claimed by %s%s, which is still running; wait for it to end or stop it (cairn stop %s)", e.Number, e.Holder, since, e.Holder.Run)
	default:
		return fmt.Sprintf("issue #%d is claimed by %s%s; cairn cannot tell from here whether that run still runs: if it does not, delete its claim with \"git push origin --delete %s\"", e.Number, e.Holder, since, ClaimRef(e.Number))
	}
}

// claimTries bounds how often TakeClaim reads a claim that changes under it.
const claimTries = 5

// TakeClaim claims issue number for holder (docs/design.md §7.8): it pushes a commit naming
// the holder to ClaimRef on origin, without force, so of two racing runs
// only one wins. A claim already there is refused with a *ClaimedError
// naming its holder; with takeOver, a stale one (its run stopped) is
// replaced, through a push that succeeds only while the ref still holds it.
// The caller holds the lock of holder.Folder, its run's folder: a claim
// naming the same run and folder on this host is its own, left by an
// earlier cairn of the run (a resumed run), and is replaced without
// takeOver. stale tells whether a holder has stopped (ProcessStaleness
// when nil). The commit is made with git commit-tree of the empty tree: the
// working tree and the index are never touched. git runs in repo.
func TakeClaim(ctx context.Context, repo *git.Repo, number int, holder Holder, takeOver bool, stale Staleness) (*Claim, error) {
	if stale == nil {
		stale = ProcessStaleness
	}
	if number <= 0 {
		return nil, fmt.Errorf("claim issue #%d: an issue number is positive", number)
	}
	ref := ClaimRef(number)
	commit, err := claimCommit(ctx, repo, number, holder)
	if err != nil {
		return nil, fmt.Errorf("claim issue #%d: %w", number, err)
	}
	c := &Claim{Number: number, Holder: holder, Commit: commit, repo: repo}
	for try := 0; try < claimTries; try++ {
		pushErr := pushClaim(ctx, repo, commit+":"+ref, "")
		if pushErr == nil {
			return c, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("claim issue #%d: %w", number, err)
		}
		held, err := readClaim(ctx, repo, number)
		if err != nil {
			return nil, fmt.Errorf("claim issue #%d: %w", number, err)
		}
		if held == nil {
			// No claim is there, so the push failed for another reason
			// (no access to origin, say).
			return nil, fmt.Errorf("claim issue #%d: %w", number, pushErr)
		}
		if held.sha == commit {
			return c, nil
		}
		claimed := &ClaimedError{Number: number, Holder: held.holder, Since: held.since}
		claimed.Local, claimed.Stale = stale(held.holder)
		// A claim naming the caller's own folder reads as live by the lock
		// the caller holds there: a cairn of this run that held it would
		// have kept the caller out, so the claim's run has stopped.
		sameRun := claimed.Local && held.holder.Run == holder.Run && held.holder.Host == holder.Host
		ours := sameRun && (claimed.Stale || sameFolder(held.holder.Folder, holder.Folder))
		if !ours && !(claimed.Stale && takeOver) {
			return nil, claimed
		}
		if err := pushClaim(ctx, repo, commit+":"+ref, held.sha); err == nil {
			return c, nil
		}
		// The claim changed since it was read: read it again.
	}
	return nil, fmt.Errorf("claim issue #%d: %s on origin kept changing; try again", number, ref)
}

// claimCommit makes the claim commit: the empty tree, no parent, a message
// naming the holder. Only an object is written.
func claimCommit(ctx context.Context, repo *git.Repo, number int, holder Holder) (string, error) {
	tree, err := repo.Git.RunInput(ctx, repo.Root, "", "mktree")
	if err != nil {
		return "", err
	}
	host := holder.Host
	if host == "" || strings.ContainsAny(host, "<>\n ") {
		host = "localhost"
	}
	g := repo.Git.With(
		"GIT_AUTHOR_NAME=cairn", "GIT_AUTHOR_EMAIL=cairn@"+host,
		"GIT_COMMITTER_NAME=cairn", "GIT_COMMITTER_EMAIL=cairn@"+host,
	)
	out, err := g.RunInput(ctx, repo.Root, holder.message(number), "commit-tree", strings.TrimSpace(tree))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// pushClaim pushes refspec to origin: without force when lease is "", else
// only while the remote ref holds the commit lease. Hooks are not run: the
// claim is no code.
func pushClaim(ctx context.Context, repo *git.Repo, refspec, lease string) error {
	args := []string{"push", "--quiet", "--no-verify", "origin", refspec}
	if lease != "" {
		dst := refspec[strings.IndexByte(refspec, ':')+1:]
		args = []string{"push", "--quiet", "--no-verify", "--force-with-lease=" + dst + ":" + lease, "origin", refspec}
	}
	_, err := repo.Run(ctx, args...)
	return err
}

// claimSHA is the commit the claim ref on origin points at: "" for none.
func claimSHA(ctx context.Context, repo *git.Repo, number int) (string, error) {
	out, err := repo.Run(ctx, "ls-remote", "origin", ClaimRef(number))
	if err != nil {
		return "", err
	}
	if f := strings.Fields(out); len(f) >= 2 {
		return f[0], nil
	}
	return "", nil
}

// heldClaim is a claim found on origin.
type heldClaim struct {
	sha    string
	holder Holder
	since  time.Time
}

// readClaim reads the claim on issue number from origin: nil when there is
// none.
func readClaim(ctx context.Context, repo *git.Repo, number int) (*heldClaim, error) {
	ref := ClaimRef(number)
	for try := 0; try < claimTries; try++ {
		sha, err := claimSHA(ctx, repo, number)
		if err != nil || sha == "" {
			return nil, err
		}
		if _, err := repo.Run(ctx, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin", ref); err != nil {
			return nil, err
		}
		// The ref may have moved between ls-remote and fetch; then the
		// commit read is not there, and it is read again.
		msg, err := repo.Run(ctx, "log", "-1", "--format=%ct%n%B", sha, "--")
		if err != nil {
			continue
		}
		when, body, _ := strings.Cut(msg, "\n")
		secs, _ := strconv.ParseInt(strings.TrimSpace(when), 10, 64)
		return &heldClaim{sha: sha, holder: parseHolder(body), since: time.Unix(secs, 0).UTC()}, nil
	}
	return nil, fmt.Errorf("read the claim %s on origin: it kept changing", ref)
}

// Staleness tells whether h ran on this host (local), and if so whether it
// has stopped (stale). A holder on another host is never known stale.
type Staleness func(h Holder) (local, stale bool)

// ProcessStaleness is the Staleness a holder's process tells: local when
// it names this host, stale when its process is gone.
func ProcessStaleness(h Holder) (local, stale bool) {
	host, err := os.Hostname()
	if err != nil || h.Host == "" || h.Host != host {
		return false, false
	}
	return true, !processAlive(h.PID)
}

// sameFolder reports whether a and b, absolute paths, are one folder.
func sameFolder(a, b string) bool {
	if a == "" || b == "" || !filepath.IsAbs(a) || !filepath.IsAbs(b) {
		return false
	}
	if a == b {
		return true
	}
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// Release deletes the claim from origin, only while the ref still holds
// this claim's commit: a claim taken over since is left alone, and said so.
// A claim already gone is no error.
func (c *Claim) Release(ctx context.Context) error {
	if c == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release the claim on issue #%d: %w", c.Number, err)
	}
	ref := ClaimRef(c.Number)
	sha, err := claimSHA(ctx, c.repo, c.Number)
	if err != nil {
		return fmt.Errorf("release the claim on issue #%d: %w", c.Number, err)
	}
	if sha == "" {
		return nil
	}
	if sha != c.Commit {
		who := "another run"
		if held, err := readClaim(ctx, c.repo, c.Number); err == nil && held != nil {
			who = held.holder.String()
		}
		return fmt.Errorf("release the claim on issue #%d: it is now held by %s; left alone", c.Number, who)
	}
	if err := pushClaim(ctx, c.repo, ":"+ref, c.Commit); err != nil {
		return fmt.Errorf("release the claim on issue #%d: %w; delete it with \"git push origin --delete %s\"", c.Number, err, ref)
	}
	return nil
}
