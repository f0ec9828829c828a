package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/lookpath"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
)

// DefaultPreflightTimeout is how long a harness's preflight commands may
// take, together, before the harness is said not to start; the config's
// preflight_timeout changes it. A CLI on a loaded machine can take 15 s to
// print its version.
const DefaultPreflightTimeout = 30 * time.Second

// waitDelay bounds the wait for a preflight command's output once it is
// killed: a command that forks a child holding its output open must not
// keep cairn waiting.
const waitDelay = time.Second

// PreflightOptions are the environment a preflight runs its commands in and
// reads the CLIs' key variables from, whole, and how long its commands may
// take (zero: DefaultPreflightTimeout).
type PreflightOptions struct {
	Env []string
	// Dir is the directory cairn works in (-C): the version command runs
	// there, and a command named by a path is taken from there; "" for
	// cairn's working directory.
	Dir     string
	Timeout time.Duration
}

// Preflight asks whether h can start (docs/design.md §8): its binary is on PATH and its
// version command exits 0 within the timeout. The status's Detail is the
// version command's first non-empty line of output (such as "2.1.328 (Claude
// Code)"), or why h cannot start. A custom harness with no preflight argv
// only has to be on PATH; its Detail is the binary's path.
//
// A built-in harness that starts is then asked whether its CLI can
// authenticate (LoggedIn, Login), by the CLI's own status command or the
// variables it reads; a custom harness's answer is unknown.
func (h *Harness) Preflight(ctx context.Context, o PreflightOptions) ir.HarnessStatus {
	st := ir.HarnessStatus{Name: h.Name, Checked: true}
	if h.spec.Err != nil {
		st.Detail = h.spec.Err.Error()
		return st
	}
	if len(h.spec.Version) == 0 || h.spec.Version[0] == "" {
		st.Detail = fmt.Sprintf("harness %q has no command", h.Name)
		return st
	}
	env := environ(o.Env)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultPreflightTimeout
	}
	bin := h.spec.Version[0]
	var path string
	var err error
	if strings.ContainsRune(bin, '/') {
		path, err = exec.LookPath(workdir.Path(o.Dir, bin))
	} else {
		path, err = lookpath.In(env, "", bin)
	}
	if err != nil {
		if strings.ContainsRune(bin, '/') {
			st.Detail = fmt.Sprintf("%q cannot be run: %v", bin, errors.Unwrap(err))
		} else {
			st.Detail = fmt.Sprintf("%q not found on PATH", bin)
		}
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if len(h.spec.Version) == 1 {
		st.OK, st.Detail = true, path
	} else {
		h.runVersion(ctx, path, o.Dir, env, timeout, &st)
	}
	if st.OK {
		if l, known := h.adapter.Login(ctx, path, env); known {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				l = loginUnknown(fmt.Sprintf("no answer within %s", timeout))
			}
			st.LoggedIn, st.Login = l.LoggedIn, l.How
		}
	}
	return st
}

// runVersion runs h's version command and words its outcome into st.
func (h *Harness) runVersion(ctx context.Context, path, dir string, env environ, timeout time.Duration, st *ir.HarnessStatus) {
	cmd := exec.CommandContext(ctx, path, h.spec.Version[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	shown := strings.Join(h.spec.Version, " ")
	switch {
	case err == nil:
		st.OK = true
		st.Detail = text.FirstLine(stdout.String())
		if st.Detail == "" {
			st.Detail = text.FirstLine(stderr.String())
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		st.Detail = fmt.Sprintf("%q did not exit within %s", shown, timeout)
	case ctx.Err() != nil:
		st.Detail = fmt.Sprintf("%q: %v", shown, ctx.Err())
	default:
		why := lastLine(stderr.String())
		if why == "" {
			why = lastLine(stdout.String())
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Exited() {
			st.Detail = fmt.Sprintf("%q exited %d", shown, exit.ExitCode())
		} else {
			st.Detail = fmt.Sprintf("%q failed: %v", shown, err)
		}
		if why != "" {
			st.Detail += ": " + why
		}
	}
}

// lastLine returns the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return t
		}
	}
	return ""
}
