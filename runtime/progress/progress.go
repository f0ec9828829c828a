// Package progress shows a run's steps as they start and end: live lines on a
// terminal, one plain line per event elsewhere.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"golang.org/x/term"
)

// Progress shows a run's steps on stderr as they start and end. On a
// terminal it keeps one live line per step of the running stage, rewritten
// in place (a running step's line counts its time), and shows the control
// characters of what it is given escaped; elsewhere (CI, cron) it writes
// one plain line per event, as given:
//
//	12:00:01 start hunt-claude (session, claude opus, worktree claude)
//	12:00:09 done hunt-claude 8.1s
//	12:00:09 failed lint (optional): exit status 2
//	12:00:09 failed test: exit status 1
type Progress struct {
	w        io.Writer
	terminal bool
	color    bool
	now      func() time.Time
	// optional are the steps whose failure fails no run: their lines say
	// so, lest a reader take the run for failed.
	Optional map[string]bool

	mu sync.Mutex
	// block holds the live lines of a terminal: the steps shown since the
	// last moment none was running. drawn is how many of them are on the
	// screen below the cursor's line.
	block []*progressLine
	drawn int
	width int
	// under holds, by step, the lines attach gave to show under the
	// step's line once it ends.
	under map[string][]string

	// stop ends the ticking redraw, which closes done once it has.
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// progressLine is one step's live line.
type progressLine struct {
	step    string
	detail  string
	start   time.Time
	ended   bool
	outcome record.Outcome
	took    time.Duration
	cause   string
	// optional is set for an optional step, whose failure the run goes
	// past.
	optional bool
	// under are the lines shown under the line once the step ended.
	under []string
}

// New returns the progress writer of a run, whose environment is env: its
// NO_COLOR and TERM say whether a terminal gets colour, its COLUMNS how wide
// the terminal is. On a terminal it redraws the running steps' lines every
// second, from the first start until Close.
func New(w io.Writer, terminal bool, env []string) *Progress {
	p := &Progress{
		w:        w,
		terminal: terminal,
		color:    terminal && proc.Getenv(env, "NO_COLOR") == "" && proc.Getenv(env, "TERM") != "dumb",
		now:      time.Now,
	}
	if terminal {
		p.width = terminalWidth(w, env)
	}
	return p
}

// tick redraws the live lines every second, so that running steps' times
// move, until stop is closed; then it closes done.
func (p *Progress) tick(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.running() {
				p.redraw()
			}
			p.mu.Unlock()
		}
	}
}

// Close stops the redrawing; the lines on the screen stay.
func (p *Progress) Close() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.closed = nil, true
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// Start shows that step started; detail says what it runs and where
// ("session, claude opus, worktree claude").
func (p *Progress) Start(step, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.terminal {
		p.plain(now, fmt.Sprintf("start %s (%s)", step, detail))
		return
	}
	p.block = append(p.block, &progressLine{step: step, detail: detail, start: now})
	p.redraw()
	if p.stop == nil && !p.closed {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick(p.stop, p.done)
	}
}

// End shows that step ended with outcome after took; cause says why it did
// not succeed.
func (p *Progress) End(step string, outcome record.Outcome, took time.Duration, cause string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	under := p.under[step]
	delete(p.under, step)
	if !p.terminal {
		p.plain(now, plainEnd(p.named(step, outcome), outcome, took, cause))
		p.plainUnder(under)
		return
	}
	var line *progressLine
	for _, l := range p.block {
		if l.step == step && !l.ended {
			line = l
		}
	}
	if line == nil {
		// A step that never started (cancelled) still gets its line.
		line = &progressLine{step: step}
		p.block = append(p.block, line)
	}
	line.ended, line.outcome, line.took, line.cause = true, outcome, took, cause
	line.optional = p.Optional[step]
	line.under = under
	p.redraw()
	if !p.running() {
		// Nothing is running: the lines are final and scroll away.
		p.block, p.drawn = nil, 0
	}
}

// Note shows a message about a step or the run that is not a step's start or
// end (a wait for resources, a validate warning).
func (p *Progress) Note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.terminal {
		p.plain(now, msg)
		return
	}
	p.clearBlock()
	fmt.Fprintf(p.w, "%s\n", p.fit(msg))
	p.redraw()
}

// Attach has lines shown under step's line when it ends: the end of what
// the shell that failed it wrote.
func (p *Progress) Attach(step string, lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.under == nil {
		p.under = map[string][]string{}
	}
	p.under[step] = lines
}

// NoteLines is Note with lines shown under msg.
func (p *Progress) NoteLines(msg string, lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.terminal {
		p.plain(now, msg)
		p.plainUnder(lines)
		return
	}
	p.clearBlock()
	fmt.Fprintf(p.w, "%s\n", p.fit(msg))
	for _, l := range lines {
		fmt.Fprintf(p.w, "%s\n", p.underLine(l))
	}
	p.redraw()
}

// plainUnder writes lines under a plain line, indented past its time.
func (p *Progress) plainUnder(lines []string) {
	for _, l := range lines {
		fmt.Fprintf(p.w, "           %s\n", l)
	}
}

// underLine is a line shown under a step's line on a terminal: indented
// past its mark, cut to the width.
func (p *Progress) underLine(l string) string {
	return "  " + p.fit("  "+l)
}

// named is how a step's end names it: "lint (optional)" for an optional
// step that failed, the name alone otherwise.
func (p *Progress) named(step string, outcome record.Outcome) string {
	if outcome == record.Failed && p.Optional[step] {
		return step + " (optional)"
	}
	return step
}

// OptionalSteps are the names of plan's optional steps.
func OptionalSteps(plan *ir.Plan) map[string]bool {
	out := map[string]bool{}
	for _, stage := range plan.Stages {
		for _, st := range stage {
			if st.Optional {
				out[st.Name] = true
			}
		}
	}
	return out
}

// plainEnd words a step's end for plain output: "done STEP 1.2s", "OUTCOME
// STEP: CAUSE", "inconclusive STEP 1.2s: CAUSE".
func plainEnd(step string, outcome record.Outcome, took time.Duration, cause string) string {
	line := fmt.Sprintf("%s %s", outcome, step)
	switch outcome {
	case record.Succeeded:
		line = fmt.Sprintf("done %s %s", step, ir.FormatDuration(took))
	case record.Inconclusive:
		line += " " + ir.FormatDuration(took)
	}
	if cause != "" && outcome != record.Succeeded {
		line += ": " + cause
	}
	return line
}

// plain writes one timestamped line.
func (p *Progress) plain(now time.Time, msg string) {
	fmt.Fprintf(p.w, "%s %s\n", now.Format("15:04:05"), msg)
}

// running reports whether a live line is of a running step.
func (p *Progress) running() bool {
	for _, l := range p.block {
		if !l.ended {
			return true
		}
	}
	return false
}

// clearBlock moves the cursor up over the drawn lines and clears them.
func (p *Progress) clearBlock() {
	if p.drawn == 0 {
		return
	}
	fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
	p.drawn = 0
}

// redraw rewrites the live lines in place.
func (p *Progress) redraw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	now := p.now()
	p.drawn = 0
	for _, l := range p.block {
		b.WriteString("\r\x1b[2K")
		b.WriteString(p.render(l, now))
		b.WriteByte('\n')
		p.drawn++
		if !l.ended {
			continue
		}
		for _, u := range l.under {
			b.WriteString("\r\x1b[2K")
			b.WriteString(p.underLine(u))
			b.WriteByte('\n')
			p.drawn++
		}
	}
	io.WriteString(p.w, b.String())
}

// render is one live line: a mark, the step, its time and what it runs or
// why it ended.
func (p *Progress) render(l *progressLine, now time.Time) string {
	if !l.ended {
		return p.paint("36", "…") + " " + p.fit(fmt.Sprintf("%s  %s  (%s)", l.step, ir.FormatDuration(now.Sub(l.start).Truncate(time.Second)), l.detail))
	}
	var mark, color, text string
	switch l.outcome {
	case record.Succeeded:
		mark, color, text = "✓", "32", fmt.Sprintf("%s  %s", l.step, ir.FormatDuration(l.took))
	case record.Failed, record.Interrupted:
		mark, color, text = "✗", "31", fmt.Sprintf("%s  %s", l.step, l.outcome)
		if l.optional && l.outcome == record.Failed {
			// The run goes past it: a warning's colour, not a failure's.
			color = "33"
			text += " (optional)"
		}
		if l.cause != "" {
			text += ": " + l.cause
		}
	default:
		mark, color, text = "–", "33", fmt.Sprintf("%s  %s", l.step, l.outcome)
		if l.cause != "" {
			text += ": " + l.cause
		}
	}
	return p.paint(color, mark) + " " + p.fit(text)
}

// fit cuts s to its first line, escaped (text.Escaped: a cause, a note or
// a shell's output may hold what a program wrote, which a terminal must
// show, not act on), and to the terminal's width less the mark, so that a
// line never wraps (a wrapped line would throw the redraw's count off).
func (p *Progress) fit(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = text.Escaped(s)
	room := p.width - 2
	if p.width <= 0 || utf8.RuneCountInString(s) <= room {
		return s
	}
	if room < 2 {
		return ""
	}
	r := []rune(s)
	return string(r[:room-1]) + "…"
}

// paint colours s with an ANSI SGR code unless colour is off.
func (p *Progress) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// terminalWidth is the width of the terminal w writes to: COLUMNS of env
// when set, else what the terminal says, else 80.
func terminalWidth(w io.Writer, env []string) int {
	if n, err := strconv.Atoi(proc.Getenv(env, "COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}
