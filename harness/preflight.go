package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// preflightTimeout is how long a version command may take before the
// harness is said not to start.
var preflightTimeout = 10 * time.Second

// Preflight asks whether h can start (§8): its binary is on PATH and its
// version command exits 0 within 10 seconds. The status's Detail is the
// version command's first non-empty line of output (such as "2.1.328 (Claude
// Code)"), or why h cannot start. A custom harness with no preflight argv
// only has to be on PATH; its Detail is the binary's path.
func (h *Harness) Preflight(ctx context.Context) ir.HarnessStatus {
	st := ir.HarnessStatus{Name: h.Name, Checked: true}
	if h.templateErr != nil {
		st.Detail = h.templateErr.Error()
		return st
	}
	if len(h.version) == 0 || h.version[0] == "" {
		st.Detail = fmt.Sprintf("harness %q has no command", h.Name)
		return st
	}
	bin := h.version[0]
	path, err := exec.LookPath(bin)
	if err != nil {
		if strings.ContainsRune(bin, '/') {
			st.Detail = fmt.Sprintf("%q cannot be run: %v", bin, errors.Unwrap(err))
		} else {
			st.Detail = fmt.Sprintf("%q not found on PATH", bin)
		}
		return st
	}
	if len(h.version) == 1 {
		st.OK, st.Detail = true, path
		return st
	}

	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, h.version[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A version command that forks a child holding its output open must not
	// keep cairn waiting past the kill.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	shown := strings.Join(h.version, " ")
	switch {
	case err == nil:
		st.OK = true
		st.Detail = firstLine(stdout.String())
		if st.Detail == "" {
			st.Detail = firstLine(stderr.String())
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		st.Detail = fmt.Sprintf("%q did not exit within %s", shown, preflightTimeout)
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
	return st
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
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
