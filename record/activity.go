package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ActivityFile is the name of the activity log in $CAIRN_HOME.
const ActivityFile = "activity.log"

// Activity appends one line to $CAIRN_HOME/activity.log (docs/design.md §7.5): the time in
// UTC, then fields, each "key=value", in logfmt (a value is quoted when it
// holds a space, a quote or an "=", "-" when empty). cairn writes one line
// when a run starts or is resumed (event=start run=NAME process=P repo=REPO
// containment=M, event=resume likewise: M says how the run's steps'
// processes are found to be ended, "cgroup" or "token"), one when it
// ends (event=end run=NAME process=P repo=REPO status=S), one for a
// skipped run (event=skipped process=P repo=REPO reason="another pass is
// running (run NAME)"), and one for a run refused before its first step
// that left no run folder to say why (event=refused run=NAME process=P
// repo=REPO reason=…); `cairn status` shows the skipped and refused lines of
// its repository, by repo=.
func Activity(home string, fields ...string) error {
	kv := make([]string, 0, 2*len(fields))
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return fmt.Errorf("activity field %q is not key=value", f)
		}
		kv = append(kv, k, v)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("write the activity log: %w", err)
	}
	line := time.Now().UTC().Format(time.RFC3339) + " " + logfmt(kv...) + "\n"
	f, err := os.OpenFile(filepath.Join(home, ActivityFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("write the activity log: %w", err)
	}
	// One write, so that lines of concurrent runs do not interleave.
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the activity log: %w", err)
	}
	return nil
}

// ActivityRun is a run the activity log names that left no run folder: one
// skipped, or one refused before its first step.
type ActivityRun struct {
	Time    time.Time
	Process string
	Repo    string
	Reason  string
}

// activityTail is how much of the end of the activity log SkippedRuns reads: the
// log only grows, and status wants its last lines.
const activityTail = 256 << 10

// SkippedRuns returns the last n skipped runs of repo (of every repository when
// repo is empty) in the activity log, oldest first. A missing log has none.
func SkippedRuns(home, repo string, n int) ([]ActivityRun, error) {
	return activityRuns(home, repo, "skipped", n)
}

// RefusedRuns returns the last n runs of repo (of every repository when repo
// is empty) the activity log says were refused before their first step and
// left no run folder, oldest first.
func RefusedRuns(home, repo string, n int) ([]ActivityRun, error) {
	return activityRuns(home, repo, "refused", n)
}

// activityRuns returns the last n runs of repo (of every repository when
// repo is empty) of the activity log's lines of event, oldest first. A
// missing log has none.
func activityRuns(home, repo, event string, n int) ([]ActivityRun, error) {
	f, err := os.Open(filepath.Join(home, ActivityFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the activity log: %w", err)
	}
	defer f.Close()
	b, err := readActivityTail(f, activityTail)
	if err != nil {
		return nil, fmt.Errorf("read the activity log: %w", err)
	}
	var out []ActivityRun
	for line := range strings.Lines(string(b)) {
		stamp, rest, ok := strings.Cut(strings.TrimRight(line, "\n"), " ")
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339, stamp)
		if err != nil {
			continue
		}
		f := parseLogfmt(rest)
		if f["event"] != event || (repo != "" && f["repo"] != repo) {
			continue
		}
		out = append(out, ActivityRun{Time: t, Process: f["process"], Repo: f["repo"], Reason: f["reason"]})
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}

// readActivityTail reads the last limit bytes of f, from the start of a line.
func readActivityTail(f *os.File, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-limit, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if off > 0 {
		// The first line is cut; drop it.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b, nil
}

// logfmt joins key, value pairs as logfmt: key=value, separated by spaces.
func logfmt(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(logfmtValue(kv[i+1]))
	}
	return b.String()
}

// logfmtValue is v as a logfmt value: "-" when empty, quoted (Go syntax)
// when it holds a space, a quote, an "=" or a character that does not print,
// else as it is.
func logfmtValue(v string) string {
	if v == "" {
		return "-"
	}
	if strings.ContainsFunc(v, func(r rune) bool {
		return r == ' ' || r == '"' || r == '=' || r == '\\' || !unicode.IsPrint(r)
	}) {
		return strconv.Quote(v)
	}
	return v
}

// parseLogfmt reads the key=value fields of a logfmt line: a quoted value is
// unquoted, and "-" is read as empty. A field that does not parse ends the
// line.
func parseLogfmt(line string) map[string]string {
	out := map[string]string{}
	for {
		line = strings.TrimLeft(line, " ")
		k, rest, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.Contains(k, " ") {
			return out
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return out
			}
			v, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
			if v == "-" {
				v = ""
			}
		}
		out[k] = v
		line = rest
	}
}
