package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/lookpath"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/views"
)

// doctorTimeout bounds each command the doctor runs (git --version, gh auth
// status); a harness's preflight has its own (preflight_timeout).
const doctorTimeout = 15 * time.Second

// Who needs a check that no process names.
const (
	forEveryRun = "every run"
	forScripts  = "compiled scripts"
)

// needs are the processes found that need each thing the doctor checks, by
// what they need: "git identity", "gh", a harness's name, "sandbox".
type needs map[string][]string

// add records that process needs what.
func (n needs) add(what, process string) {
	if !slices.Contains(n[what], process) {
		n[what] = append(n[what], process)
	}
}

// Doctor checks what runs need on this machine (`cairn doctor`): git and its
// identity, gh and its login, each harness's CLI (its version beside the one
// cairn's argv was verified with, and its login), what claude's sandbox
// needs, what compiled scripts need (bash 5.1, jq, flock, setsid), and
// that CAIRN_HOME can be written. A check is needed when every run needs
// it or a process found (check.List) does; a process that does not check
// needs nothing.
func (ws *Workspace) Doctor(ctx context.Context) *views.Doctor {
	env := ws.Env
	n := needs{}
	found, _ := check.List(env)
	preflight := env.Preflight
	env.Preflight = false
	for _, f := range found {
		_, plan, _ := ws.checkFile(ctx, f.File)
		if plan == nil {
			continue
		}
		processNeeds(n, f.Name, plan)
	}
	env.Preflight = preflight
	d := &views.Doctor{Processes: len(found)}
	add := func(c views.DoctorCheck, needed []string) {
		if len(needed) > 0 {
			c.Needed = true
			c.For = append(c.For, needed...)
		}
		d.Checks = append(d.Checks, c)
	}

	git := ws.tool(ctx, "git", "--version")
	git.For, git.Needed = []string{forEveryRun}, true
	d.Checks = append(d.Checks, git)
	if git.Health == views.HealthOK {
		add(ws.gitIdentity(ctx), n["git identity"])
	}
	gh := ws.tool(ctx, "gh", "--version")
	add(gh, n["gh"])
	if gh.Health == views.HealthOK {
		add(ws.ghLogin(ctx), n["gh"])
	}
	for _, name := range env.Harnesses.Names() {
		h, _ := env.Harnesses.Lookup(name)
		cli, login := harnessChecks(check.Preflight(ctx, env, h), h)
		add(cli, n[name])
		if login != nil {
			add(*login, n[name])
		}
	}
	for _, bin := range []string{"bwrap", "socat"} {
		c := ws.tool(ctx, bin, "")
		c.For = []string{"claude's sandbox"}
		if c.Health == views.HealthMissing {
			c.Detail += "; claude's sessions run unconfined (a plan says so)"
		}
		d.Checks = append(d.Checks, c)
	}
	d.Checks = append(d.Checks, ws.bash(ctx))
	for _, bin := range []string{"jq", "flock", "setsid"} {
		c := ws.tool(ctx, bin, "")
		c.For = []string{forScripts}
		d.Checks = append(d.Checks, c)
	}
	home := writable(env.Home)
	home.For, home.Needed = []string{forEveryRun}, true
	d.Checks = append(d.Checks, home)
	return d
}

// processNeeds records in n what the process name, planned as plan, needs:
// the harnesses its sessions and judges use; git's identity when it
// commits (commit mode, an issue branch); gh when it runs on an issue or
// has a catalogue step.
func processNeeds(n needs, name string, plan *ir.Plan) {
	for _, h := range plan.Harnesses {
		n.add(h.Name, name)
	}
	if plan.Commit {
		n.add("git identity", name)
	}
	for _, w := range plan.Worktrees {
		if w.Kind == ir.IssueBranch {
			n.add("git identity", name)
			n.add("gh", name)
		}
	}
	for _, stage := range plan.Stages {
		for _, st := range stage {
			for _, a := range st.Actions {
				if a.Kind == ir.Catalogue {
					n.add("gh", name)
				}
			}
		}
	}
}

// tool checks that bin is on PATH and, when arg is set, that `bin arg`
// exits 0: its detail is the first line it printed, else bin's path.
func (ws *Workspace) tool(ctx context.Context, bin, arg string) views.DoctorCheck {
	c := views.DoctorCheck{Name: bin, Health: views.HealthMissing}
	path, err := lookpath.In(ws.Env.Environ, "", bin)
	if err != nil {
		c.Detail = fmt.Sprintf("%q not found on PATH", bin)
		return c
	}
	if arg == "" {
		c.Health, c.Detail = views.HealthOK, path
		return c
	}
	out, err := ws.command(ctx, path, arg)
	if err != nil {
		c.Detail = fmt.Sprintf("%s %s: %v", bin, arg, err)
		return c
	}
	c.Health, c.Detail = views.HealthOK, text.FirstLine(out)
	if c.Detail == "" {
		c.Detail = path
	}
	return c
}

// command runs path with args in the workspace's folder and environment,
// within doctorTimeout, and returns what it printed, stdout then stderr;
// its error is the last line of its stderr (else stdout), when it printed
// one.
func (ws *Workspace) command(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir, cmd.Env = ws.Env.Dir, ws.Env.Environ
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("no answer within %s", doctorTimeout)
	}
	if err != nil {
		if why := lastLine(stderr.String()); why != "" {
			return "", errors.New(why)
		}
		if why := lastLine(stdout.String()); why != "" {
			return "", errors.New(why)
		}
		return "", err
	}
	return stdout.String() + stderr.String(), nil
}

// path is where bin is on the workspace's PATH; bin itself when it is not
// there.
func (ws *Workspace) path(bin string) string {
	if p, err := lookpath.In(ws.Env.Environ, "", bin); err == nil {
		return p
	}
	return bin
}

// lastLine is s's last non-blank line, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// gitIdentity checks that git has an author and a committer to commit as,
// as commit mode asks before its first step.
func (ws *Workspace) gitIdentity(ctx context.Context) views.DoctorCheck {
	c := views.DoctorCheck{Name: "git identity", Health: views.HealthMissing}
	var who string
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		out, err := ws.command(ctx, ws.path("git"), "var", v)
		if err != nil {
			c.Detail = "git has no identity to commit as; set one with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`"
			return c
		}
		if who == "" {
			// "Name <email> 1767225600 +0000": the name and the address.
			who = text.FirstLine(out)
			if i := strings.LastIndex(who, "> "); i >= 0 {
				who = who[:i+1]
			}
		}
	}
	c.Health, c.Detail = views.HealthOK, who
	return c
}

// ghLogin checks that gh can reach GitHub as someone: `gh auth status`
// (which reads GH_TOKEN too) exits 0.
func (ws *Workspace) ghLogin(ctx context.Context) views.DoctorCheck {
	c := views.DoctorCheck{Name: "gh login", Health: views.HealthMissing}
	out, err := ws.command(ctx, ws.path("gh"), "auth", "status")
	if err != nil {
		c.Detail = fmt.Sprintf("gh auth status: %v; log in with `gh auth login`, or set GH_TOKEN", err)
		return c
	}
	c.Health, c.Detail = views.HealthOK, "logged in"
	for line := range strings.Lines(out) {
		// "  ✓ Logged in to github.com account NAME (keyring)"
		if strings.Contains(line, "Logged in") {
			c.Detail = strings.TrimSpace(line)
			break
		}
	}
	return c
}

// harnessChecks words a harness's preflight: its CLI (missing, or found at
// a version other than the one cairn's argv was verified with: a warning),
// and, when its CLI starts and says so, whether it is logged in.
func harnessChecks(st ir.HarnessStatus, h *harness.Harness) (views.DoctorCheck, *views.DoctorCheck) {
	cli := views.DoctorCheck{Name: h.Name, Health: views.HealthMissing, Detail: st.Detail}
	if in, ok := h.Install(); ok {
		cli.Install = in.Package + "@" + in.Version
	}
	if !st.OK {
		if cli.Install != "" {
			cli.Detail += fmt.Sprintf("; install it with `npm install -g %s`", cli.Install)
		}
		return cli, nil
	}
	cli.Health = views.HealthOK
	if in, ok := h.Install(); ok && !strings.Contains(st.Detail, in.Version) {
		cli.Health = views.HealthWarning
		cli.Detail += fmt.Sprintf(" (cairn was verified with %s)", in.Version)
	}
	if st.LoggedIn == nil {
		return cli, nil
	}
	login := views.DoctorCheck{Name: h.Name + " login", Health: views.HealthOK, Detail: st.Login}
	if !*st.LoggedIn {
		login.Health = views.HealthMissing
	}
	return cli, &login
}

// bash checks the bash compiled scripts run on: 5.1 or newer.
func (ws *Workspace) bash(ctx context.Context) views.DoctorCheck {
	c := ws.tool(ctx, "bash", "")
	c.For = []string{forScripts}
	if c.Health != views.HealthOK {
		return c
	}
	out, err := ws.command(ctx, c.Detail, "-c", `printf '%s %s\n' "${BASH_VERSINFO[0]}" "${BASH_VERSINFO[1]}"`)
	var major, minor int
	if err == nil {
		_, err = fmt.Sscanf(text.FirstLine(out), "%d %d", &major, &minor)
	}
	switch {
	case err != nil:
		c.Health, c.Detail = views.HealthMissing, fmt.Sprintf("cannot tell its version: %v", err)
	case major < 5 || major == 5 && minor < 1:
		c.Health, c.Detail = views.HealthMissing, fmt.Sprintf("bash %d.%d; compiled scripts need 5.1 or newer", major, minor)
	default:
		c.Detail = fmt.Sprintf("bash %d.%d", major, minor)
	}
	return c
}

// writable checks that cairn can write in its home, home: a file can be
// made there, or, where it does not exist yet, in the folder it would be
// made in.
func writable(home string) views.DoctorCheck {
	c := views.DoctorCheck{Name: "CAIRN_HOME", Health: views.HealthMissing}
	dir, note := home, ""
	for {
		if fi, err := os.Stat(dir); err == nil {
			if !fi.IsDir() {
				c.Detail = fmt.Sprintf("%s is not a folder", dir)
				return c
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir, note = parent, " (not made yet)"
	}
	f, err := os.CreateTemp(dir, ".cairn-doctor-*")
	if err != nil {
		c.Detail = fmt.Sprintf("%s cannot be written: %v", home, err)
		return c
	}
	f.Close()
	os.Remove(f.Name())
	c.Health, c.Detail = views.HealthOK, home+note
	return c
}
