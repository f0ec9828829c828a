package harness

import (
	"context"
	"errors"
	"os/exec"
	"strings"
)

// Login is what a login probe found: whether the CLI can authenticate (nil:
// unknown) and how it knows, in words for the plan.
type Login struct {
	LoggedIn *bool
	How      string
}

func loggedIn(how string) Login  { t := true; return Login{LoggedIn: &t, How: how} }
func loggedOut(how string) Login { f := false; return Login{LoggedIn: &f, How: how} }
func loginUnknown(how string) Login {
	return Login{How: how}
}

// environ is an explicit environment, as a list of KEY=VALUE.
type environ []string

// get is the value of key, empty when unset.
func (e environ) get(key string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// probe runs bin with args in env and returns its stdout and stderr, and
// its exit code (-1 when it did not exit on its own).
func probe(ctx context.Context, bin string, env environ, args ...string) (stdout, stderr string, code int) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	code = 0
	if err != nil {
		code = -1
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Exited() {
			code = exit.ExitCode()
		}
	}
	return out.String(), errb.String(), code
}

// probeFailed words a status command whose answer could not be read.
func probeFailed(shown string, code int, stdout, stderr string) string {
	why := lastLine(stderr)
	if why == "" {
		why = lastLine(stdout)
	}
	if code < 0 {
		return shown + " did not answer" + suffix(why)
	}
	return shown + " gave no answer cairn reads" + suffix(why)
}

func suffix(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}
