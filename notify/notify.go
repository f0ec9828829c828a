// Package notify tells the user a run has ended, through the config's
// [notify] command (docs/design.md §7.9).
package notify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// NotifyTimeout is how long the [notify] command may run.
const NotifyTimeout = 30 * time.Second

// The variables the [notify] command is given (docs/design.md §7.9); CAIRN_RUN is the
// run folder, as a step's shells have it.
const (
	EnvProcess     = "CAIRN_PROCESS"
	EnvStatus      = "CAIRN_STATUS"
	EnvPullRequest = "CAIRN_PR_URL"
)

// notifyClass is the [notify] `on` event a run's status belongs to:
// "success" for a succeeded run, "failure" for every other end.
func notifyClass(s record.Status) string {
	if s == record.StatusSucceeded {
		return "success"
	}
	return "failure"
}

// Notification is what the [notify] command is told of a run's end.
type Notification struct {
	Process string
	Status  record.Status
	// Run is the run folder.
	Run string
	// PullRequest is the URL of the run's pull request; "" when it has
	// none.
	PullRequest string
	// Dir is the directory the command runs in, the one cairn works in
	// (-C); "" for cairn's working directory.
	Dir string
}

// Send runs the plan's [notify] command n (docs/design.md §7.9) when its `on` lists the
// class of note's status ("success", "failure"; every end when `on` is not
// set), in the environment env with CAIRN_PROCESS, CAIRN_STATUS and
// CAIRN_RUN set, and CAIRN_PR_URL when the run has a pull request, for at
// most NotifyTimeout, or until ctx ends. Its output goes to w. It reports
// whether the command ran, and why it failed; a failed notification changes
// nothing of the run.
func Send(ctx context.Context, n ir.PlanNotify, note Notification, env []string, w io.Writer) (bool, error) {
	argv := n.Command
	if len(argv) == 0 || argv[0] == "" {
		return false, nil
	}
	if n.OnSet && !slices.Contains(n.On, notifyClass(note.Status)) {
		return false, nil
	}
	var out bytes.Buffer
	set := []string{
		EnvProcess + "=" + note.Process,
		EnvStatus + "=" + string(note.Status),
		step.EnvRun + "=" + note.Run,
	}
	var drop []string
	if note.PullRequest != "" {
		set = append(set, EnvPullRequest+"="+note.PullRequest)
	} else {
		// A CAIRN_PR_URL of the user's own must not pass for the run's.
		drop = append(drop, EnvPullRequest)
	}
	p := &proc.Proc{
		Argv:    argv,
		Dir:     note.Dir,
		Env:     proc.MergeEnv(env, set, drop),
		Stdout:  &out,
		Stderr:  &out,
		Timeout: NotifyTimeout,
		Grace:   time.Second,
	}
	res, err := p.Run(ctx)
	if out.Len() > 0 {
		w.Write(out.Bytes())
	}
	switch {
	case err != nil:
		return true, fmt.Errorf("notify: start %q: %w", argv[0], err)
	case res.TimedOut:
		return true, fmt.Errorf("notify: %q timed out after %s", argv[0], NotifyTimeout)
	case res.ExitCode != 0:
		return true, fmt.Errorf("notify: %q: %s", strings.Join(argv, " "), res.Cause(NotifyTimeout))
	}
	return true, nil
}
