package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
)

// RunsDir is the folder of run folders in home ($CAIRN_HOME/runs).
func RunsDir(home string) string { return filepath.Join(home, "runs") }

// loadTries bounds how often Load reads again when run.json is rewritten
// while it reads the events.
const loadTries = 10

// Load reads the record of the run folder dir: run.json, then the events
// of events.jsonl applied in order (a torn last line, a write a crash cut
// short, is ignored). A running record whose folder lock is free is
// StatusCrashed.
func Load(dir string) (*Record, error) {
	for range loadTries {
		rec, again, err := loadOnce(dir)
		if err != nil || !again {
			return rec, err
		}
	}
	return nil, fmt.Errorf("read the run record in %s: it kept changing while read", dir)
}

// loadOnce is one try of Load; again is set when run.json was replaced while
// the events were read, so that events it already holds may be gone.
func loadOnce(dir string) (rec *Record, again bool, err error) {
	path := filepath.Join(dir, RecordFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%s has no run record (%s)", dir, RecordFile)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the run record: %w", err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("read the run record: %w", err)
	}
	rec = &Record{}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(rec); err != nil {
		return nil, false, fmt.Errorf("read the run record %s: %w", path, err)
	}
	events, err := os.ReadFile(filepath.Join(dir, EventsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read the run's events: %w", err)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		return nil, true, nil
	}
	if err := applyEvents(rec, events); err != nil {
		return nil, false, fmt.Errorf("read the run's events in %s: %w", dir, err)
	}
	rec.withArrays()
	if rec.Status == StatusRunning {
		held, err := proc.Held(filepath.Join(dir, LockFile))
		if err != nil {
			return nil, false, fmt.Errorf("read the run's lock: %w", err)
		}
		if !held {
			rec.Status = StatusCrashed
		}
	}
	return rec, false, nil
}

// applyEvents applies the lines of events.jsonl to rec in order. Only the
// last line may be torn: a bad line before it is an error.
func applyEvents(rec *Record, events []byte) error {
	n := 0
	for len(events) > 0 {
		n++
		line, rest, _ := bytes.Cut(events, []byte("\n"))
		events = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			if len(bytes.TrimSpace(rest)) == 0 {
				return nil
			}
			return fmt.Errorf("line %d: %w", n, err)
		}
		rec.apply(&ev)
	}
	return nil
}

// RunInfo is one run folder: its name, its absolute path, and its record,
// or why the record could not be read.
type RunInfo struct {
	Name   string
	Dir    string
	Record *Record
	Err    error
}

// runFolderName matches a run folder's name: the process, the start in UTC, and
// the number of a later folder of the same second.
var runFolderName = regexp.MustCompile(`^(.+)_(\d{4}-\d{2}-\d{2}T\d{6}Z)(?:-(\d+))?$`)

// runFolderTime is the start and number a run folder's name gives; ok is false
// for a name that is not a run folder's.
func runFolderTime(name string) (start time.Time, n int, ok bool) {
	m := runFolderName.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, 0, false
	}
	start, err := time.Parse(folderTimeFormat, m[2])
	if err != nil {
		return time.Time{}, 0, false
	}
	n = 1
	if m[3] != "" {
		n, _ = strconv.Atoi(m[3])
	}
	return start, n, true
}

// ListRuns reads every run folder of home, and of the folders more (the
// .cairn/runs of a repository, whose commit-mode runs live there, docs/design.md §7.6),
// newest first. A folder whose record cannot be read is listed with the
// error. A runs folder that does not exist holds no runs; one that is
// another's under a second name (a link to it) is read once. An entry that
// is a symbolic link is no run folder.
func ListRuns(home string, more ...string) ([]RunInfo, error) {
	var entries []RunInfo
	var seen []fs.FileInfo
	for _, d := range append([]string{RunsDir(home)}, more...) {
		dir, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("list the runs: %w", err)
		}
		info, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list the runs: %w", err)
		}
		if slices.ContainsFunc(seen, func(s fs.FileInfo) bool { return os.SameFile(s, info) }) {
			continue
		}
		seen = append(seen, info)
		es, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("list the runs: %w", err)
		}
		for _, e := range es {
			// The type is the entry's own: a link to a folder is no
			// folder here.
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				entries = append(entries, RunInfo{Name: e.Name(), Dir: filepath.Join(dir, e.Name())})
			}
		}
	}
	type sorted struct {
		RunInfo
		start time.Time
		n     int
	}
	var runs []sorted
	for _, e := range entries {
		r := sorted{RunInfo: e}
		if starting(r.Dir) {
			continue
		}
		r.start, r.n, _ = runFolderTime(r.Name)
		r.Record, r.Err = Load(r.Dir)
		if r.Record != nil && !r.Record.Start.IsZero() {
			r.start = r.Record.Start
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b sorted) int {
		if c := b.start.Compare(a.start); c != 0 {
			return c
		}
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(b.Name, a.Name)
	})
	out := make([]RunInfo, len(runs))
	for i, r := range runs {
		out[i] = r.RunInfo
	}
	return out, nil
}

// starting reports whether the run folder dir is being made: its cairn
// holds its lock and has not written its record yet.
func starting(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, RecordFile)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	held, err := proc.Held(filepath.Join(dir, LockFile))
	return err == nil && held
}

// FindRun finds the run folder arg names (docs/design.md §7.5): a folder's name, a unique
// prefix of one, or the path of a run folder, taken relative to dir, the
// directory cairn works in (-C; "" for cairn's working directory); with no
// arg, the latest run of repo (the latest of all when repo is empty). more
// are runs folders besides home's, as for ListRuns.
func FindRun(home, dir, repo, arg string, more ...string) (string, error) {
	if strings.ContainsRune(arg, filepath.Separator) {
		path := workdir.Path(dir, arg)
		if _, err := os.Stat(filepath.Join(path, RecordFile)); err != nil {
			return "", fmt.Errorf("%q is not a run folder", arg)
		}
		return filepath.Abs(path)
	}
	runs, err := ListRuns(home, more...)
	if err != nil {
		return "", err
	}
	if arg == "" {
		for _, r := range runs {
			if repo == "" || (r.Record != nil && r.Record.Repo == repo) {
				return r.Dir, nil
			}
		}
		if repo != "" {
			return "", fmt.Errorf("no runs of this repository in %s", RunsDir(home))
		}
		return "", fmt.Errorf("no runs in %s", RunsDir(home))
	}
	var matches, dirs []string
	for _, r := range runs {
		if r.Name == arg {
			return r.Dir, nil
		}
		if strings.HasPrefix(r.Name, arg) {
			matches, dirs = append(matches, r.Name), append(dirs, r.Dir)
		}
	}
	switch len(matches) {
	case 0:
		if len(runs) == 0 {
			return "", fmt.Errorf("no run %q: there are no runs in %s", arg, RunsDir(home))
		}
		return "", fmt.Errorf("no run %q in %s; `cairn status --all` lists them", arg, RunsDir(home))
	case 1:
		return dirs[0], nil
	}
	const most = 5
	shown := matches[:min(len(matches), most)]
	rest := ""
	if len(matches) > most {
		rest = fmt.Sprintf(" and %d more", len(matches)-most)
	}
	return "", fmt.Errorf("%q names %d runs: %s%s; give more of the name", arg, len(matches), strings.Join(shown, ", "), rest)
}

// StatusOptions choose the runs `cairn status` lists.
type StatusOptions struct {
	// Repo keeps the runs of one repository (the realpath of its git
	// common dir); empty keeps every run.
	Repo string
	// Limit is how many ended runs to list; running and crashed runs are
	// always listed. Zero lists every run.
	Limit int
	// Skipped is how many skipped runs of the activity log to list, and
	// how many refused ones.
	Skipped int
	// More are runs folders besides home's, as for ListRuns.
	More []string
}

// Runs are the runs `cairn status` lists: run folders, newest first, and
// the runs the activity log says were refused (leaving no run folder) or
// skipped, oldest first.
type Runs struct {
	// Repo is the repository whose runs these are (StatusOptions.Repo);
	// empty for every repository's.
	Repo    string
	Folders []RunInfo
	Refused []ActivityRun
	Skipped []ActivityRun
}

// StatusRuns gathers the runs of `cairn status`: those of o.Repo (all when
// it is empty), newest first, and the refused and skipped runs of the
// activity log. A folder whose record cannot be read is listed when every
// repository's runs are.
func StatusRuns(home string, o StatusOptions) (*Runs, error) {
	runs, err := ListRuns(home, o.More...)
	if err != nil {
		return nil, err
	}
	l := &Runs{Repo: o.Repo}
	ended := 0
	for _, r := range runs {
		if r.Record == nil {
			if o.Repo == "" {
				l.Folders = append(l.Folders, r)
			}
			continue
		}
		if o.Repo != "" && r.Record.Repo != o.Repo {
			continue
		}
		if s := r.Record.Status; s != StatusRunning && s != StatusCrashed {
			if o.Limit > 0 && ended >= o.Limit {
				continue
			}
			ended++
		}
		l.Folders = append(l.Folders, r)
	}
	if l.Skipped, err = SkippedRuns(home, o.Repo, o.Skipped); err != nil {
		return nil, err
	}
	if l.Refused, err = RefusedRuns(home, o.Repo, o.Skipped); err != nil {
		return nil, err
	}
	return l, nil
}

// Failure is why a failed run failed: its first failed step that is not
// optional and that step's cause, or, when no such step failed (the run was
// refused before its first step), no step and the run's own cause. Output
// is the last line a failed command of that step wrote, cut to a width that
// fits a line (often the error itself: "exit status 2" says little).
type Failure struct {
	Step   string
	Cause  string
	Output string
}

// FailureOf is why the run of rec failed: its first failed step that is not
// optional (an optional step's failure fails no run), else the run's own
// cause, recorded when it was refused before its first step; nil when
// neither says anything.
func FailureOf(rec *Record) *Failure {
	for i := range rec.Steps {
		if s := &rec.Steps[i]; s.Outcome == Failed && !s.Optional {
			return &Failure{Step: s.Name, Cause: s.Cause, Output: lastOutput(s)}
		}
	}
	if rec.Cause != "" {
		return &Failure{Cause: rec.Cause}
	}
	return nil
}

// maxOutputShown is how much of a failed command's last line of output a
// run's failure shows, in runes.
const maxOutputShown = 100

// lastOutput is the last line of output of step's failed command, cut to
// maxOutputShown runes; "" when it has none.
func lastOutput(step *StepRecord) string {
	for _, a := range step.Actions {
		if a.Kind != ir.Command || a.Cause == "" || a.Tail == "" {
			continue
		}
		line := a.Tail[strings.LastIndexByte(a.Tail, '\n')+1:]
		if r := []rune(line); len(r) > maxOutputShown {
			line = string(r[:maxOutputShown-1]) + "…"
		}
		return line
	}
	return ""
}

// Run is a run as its folder holds it, for `cairn show`: the folder's name
// and absolute path, its record, and each step's line of the run's log.
type Run struct {
	Name   string
	Dir    string
	Record *Record
	// Lines are the steps' lines of the log, one for each of
	// Record.Steps, in order: the step's line of the run's log, or one
	// built from its record (StepLogLine) for a step the log has no line
	// of or that has not ended.
	Lines []string
	// ItemLines are, for each of Record.Steps, the lines of its items
	// (a step with for_each), built as Lines are; nil for another step.
	ItemLines [][]string
}

// ReadRun reads the run folder dir: its record, and each step's line of
// the run's log.
func ReadRun(dir string) (*Run, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	rec, err := Load(dir)
	if err != nil {
		return nil, err
	}
	logged, err := readLog(filepath.Join(dir, LogFile))
	if err != nil {
		return nil, err
	}
	r := &Run{Name: filepath.Base(dir), Dir: dir, Record: rec}
	lineOf := func(step *StepRecord) string {
		line, ok := logged[step.Name]
		if !ok || !step.Ended() {
			line = StepLogLine(step).String()
		}
		return line
	}
	for i := range rec.Steps {
		step := &rec.Steps[i]
		r.Lines = append(r.Lines, lineOf(step))
		var items []string
		for k := range step.Items {
			items = append(items, lineOf(&step.Items[k]))
		}
		r.ItemLines = append(r.ItemLines, items)
	}
	return r, nil
}

// InRunFolder is rel (a path in a record) made absolute in the run folder dir;
// "" stays "".
func InRunFolder(dir, rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(dir, rel)
}

// readLog reads a run's log: each step's last line, by step name. A missing
// log has no lines.
func readLog(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's log: %w", err)
	}
	lines := map[string]string{}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		if step := parseLogfmt(line)["step"]; step != "" {
			lines[step] = line
		}
	}
	return lines, nil
}

// RepoRunsDir is the folder of a repository's commit-mode runs: .cairn/runs
// under the root of its working tree. Neither .cairn nor .cairn/runs need
// exist, but one that is a symbolic link, or no folder, is refused: through
// it a repository would steer the runs cairn writes, lists and deletes out
// of its working tree.
func RepoRunsDir(root string) (string, error) {
	dir := root
	for _, name := range strings.Split(ir.RunsInRepo, "/") {
		dir = filepath.Join(dir, name)
		info, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return filepath.Join(root, filepath.FromSlash(ir.RunsInRepo)), nil
		case err != nil:
			return "", fmt.Errorf("the folder of the repository's runs: %w", err)
		case info.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link: cairn keeps a repository's runs in a folder of its working tree and follows no link out of it; remove the link", dir)
		case !info.IsDir():
			return "", fmt.Errorf("%s is not a folder: cairn keeps a repository's runs there", dir)
		}
	}
	return dir, nil
}
