package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/modeldouble"
	"github.com/cairn-dev/cairn/record"
)

// tickets are the items the plan session gives, in order: each is also the
// mark that routes its session's turns to a script of its own on the
// double (modeldouble.Server.Route), whatever order the sessions, running
// at once, send them in.
var tickets = []string{"TICKET-alpha", "TICKET-beta", "TICKET-gamma"}

// The marks of the plan's and the judge's prompts (foreach.toml).
const (
	planMark  = "PLAN-MARK"
	judgeMark = "JUDGE-MARK"
)

// TestRealSessionsForEach runs issue 30's plan → one session per ticket →
// judge through `cairn run --jobs 2` with each real CLI (two CLIs at a
// time: realSlots) against a model double: the plan session's typed output
// gives three tickets; each ticket's session, its prompt holding its
// ticket, writes a file and runs a shell command that reads $CAIRN_ITEM in
// a throwaway worktree of its own, at most two at once; the judge's prompt
// names every ticket's result and its shell reads them all.
func TestRealSessionsForEach(t *testing.T) {
	bin := realSessionsBin(t)
	for _, cli := range realCLIs {
		t.Run(cli.name, func(t *testing.T) {
			t.Parallel()
			realSlots <- struct{}{}
			defer func() { <-realSlots }()
			realForEach(t, cli, bin, realHome(t))
		})
	}
}

// fixedMessage is the final message of the session of ticket n.
func fixedMessage(n int) string {
	return fmt.Sprintf("FIXED-%s: ticket.txt and item.json written", tickets[n])
}

func realForEach(t *testing.T, cli realCLI, bin, home string) {
	const verdict = "VERDICT: every ticket was fixed"
	list, err := json.Marshal(map[string]any{"tickets": tickets})
	if err != nil {
		t.Fatal(err)
	}
	// Claude and codex are given the schema as their own structured
	// output; the others in the prompt, where the output is the last
	// ```json block of the final message.
	plan := modeldouble.Structured(string(list))
	if cli.name != "claude" && cli.name != "codex" {
		plan = modeldouble.Text("Three tickets.\n\n```json\n" + string(list) + "\n```")
	}
	d := modeldouble.New()
	defer d.Close()
	d.Route(planMark, plan, modeldouble.Text("planned"))
	d.Route(judgeMark, modeldouble.Shell(`cat "$CAIRN_RESULTS"/fix/*.md`), modeldouble.Text(verdict))
	for n, ticket := range tickets {
		d.Route(ticket,
			modeldouble.WriteFile("ticket.txt", "fixed "+ticket+"\n"),
			modeldouble.Shell(`printf '%s\n' "$CAIRN_ITEM" > item.json`),
			modeldouble.Text(fixedMessage(n)),
		)
	}
	w := newRealWork(t, bin, home, cli.endpoint(t, home, d.URL))
	r := w.run(t, "run", "--jobs", "2", w.process(t, "foreach", oneCLI{cli.name, cli.model}))
	logDouble(t, cli.name, d)
	t.Logf("%s: the run took %v", cli.name, r.elapsed.Round(100*time.Millisecond))

	if r.code != 0 || strings.TrimSpace(r.stdout) != verdict {
		t.Errorf("exit %d, stdout %q; want 0 and the judge's verdict", r.code, r.stdout)
	}
	if s := r.step(t, "plan"); s.Outcome != record.Succeeded || s.Output != "results/plan.json" {
		t.Errorf("step plan: %s (%s), output %q; want succeeded with results/plan.json", s.Outcome, s.Cause, s.Output)
	}

	s := r.step(t, "fix")
	if s.Outcome != record.Succeeded || len(s.Items) != len(tickets) {
		t.Fatalf("step fix: %s (%s) with %d items; want succeeded with %d", s.Outcome, s.Cause, len(s.Items), len(tickets))
	}
	log := r.log(t)
	var spans [][2]time.Time
	for n, ticket := range tickets {
		it := s.Items[n]
		name := record.ItemName("fix", n)
		if it.Name != name || it.Outcome != record.Succeeded {
			t.Errorf("item %d: %s %s (%s); want %s succeeded", n, it.Name, it.Outcome, it.Cause, name)
		}
		if want := `"` + ticket + `"`; string(it.Item) != want {
			t.Errorf("%s: item %s; want %s", name, it.Item, want)
		}
		if want := fmt.Sprintf("results/fix/%d.md", n); it.Result != want {
			t.Errorf("%s: result %q; want %q", name, it.Result, want)
		}
		if got := r.result(t, fmt.Sprintf("fix/%d", n)); got != fixedMessage(n) {
			t.Errorf("results/fix/%d.md = %q; want %q", n, got, fixedMessage(n))
		}
		quoted := regexp.QuoteMeta(name)
		if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d start ` + quoted + ` \(session, ` + cli.name + ` .*worktree fix\.` + fmt.Sprint(n) + `\)$`).MatchString(r.stderr) {
			t.Errorf("stderr does not show %s starting in worktree fix.%d", name, n)
		}
		if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d done ` + quoted + ` `).MatchString(r.stderr) {
			t.Errorf("stderr has no line for %s done", name)
		}
		if !regexp.MustCompile(`(?m)\bstep=` + quoted + ` kind=session .*harness=` + cli.name + ` .*outcome=succeeded$`).MatchString(log) {
			t.Errorf("the run's log has no line for %s succeeded:\n%s", name, log)
		}

		// The ticket's session wrote its edit, and read its item from
		// $CAIRN_ITEM, in a worktree of its own: its patch holds its
		// ticket and no other's.
		p := r.patch(t, fmt.Sprintf("fix.%d", n))
		if !strings.Contains(p, "+++ b/ticket.txt") || !strings.Contains(p, "+fixed "+ticket+"\n") || !strings.Contains(p, "+\""+ticket+"\"\n") {
			t.Errorf("worktrees/fix.%d.patch does not add ticket.txt and item.json for %s:\n%s", n, ticket, p)
		}
		for _, other := range tickets {
			if other != ticket && strings.Contains(p, other) {
				t.Errorf("worktrees/fix.%d.patch holds %s's work:\n%s", n, other, p)
			}
		}

		// Its prompt held its ticket where {{ item }} was.
		turns := routed(d, ticket)
		if len(turns) < 3 {
			t.Errorf("%s's session sent %d turns; want its write, its shell and its final message", ticket, len(turns))
		} else if want := `Fix ticket "` + ticket + `" now.`; !userSaid(turns[0], want) {
			t.Errorf("the prompt of %s's session does not hold %q", ticket, want)
		}
		if it.Start != nil && it.End != nil {
			spans = append(spans, [2]time.Time{*it.Start, *it.End})
		}
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d done fix \S+$`).MatchString(r.stderr) || !regexp.MustCompile(`(?m)\bstep=fix .*outcome=succeeded$`).MatchString(log) {
		t.Errorf("stderr or the run's log has no line for the step fix done")
	}
	if n := mostAtOnce(spans); n != 2 {
		t.Errorf("at most %d items ran at once; want 2 (--jobs 2)", n)
	}
	for _, tr := range d.ToolResults() {
		if strings.Contains(tr.Output, "item.json") && tr.IsError {
			t.Errorf("a ticket's shell failed: %q", tr.Output)
		}
	}

	// The judge was given every ticket's result, and read them all.
	if j := r.step(t, "judge"); j.Outcome != record.Succeeded || r.result(t, "judge") != verdict {
		t.Errorf("step judge: %s (%s), result %q; want succeeded with the verdict", j.Outcome, j.Cause, r.result(t, "judge"))
	}
	judged := routed(d, judgeMark)
	if len(judged) == 0 {
		t.Fatalf("the judge sent no turn")
	}
	for n := range tickets {
		want := fmt.Sprintf("- `fix[%d]`: `%s`", n, filepath.Join(r.dir, record.ResultsDir, "fix", fmt.Sprint(n)+".md"))
		if !userSaid(judged[0], want) {
			t.Errorf("the judge's prompt does not name fix[%d]'s result, %q", n, want)
		}
	}
	var read *modeldouble.ToolResult
	for _, tr := range d.ToolResults() {
		if strings.Contains(tr.Output, "FIXED-") {
			read = &tr
		}
	}
	if read == nil || read.IsError {
		t.Errorf("the judge did not read the results; tool results: %s", describe(d.ToolResults()))
	} else {
		for n := range tickets {
			if !strings.Contains(read.Output, fixedMessage(n)) {
				t.Errorf("the judge's read of the results lacks fix[%d]'s: %q", n, read.Output)
			}
		}
	}
	w.noWorktreesLeft(t)
}

// routed returns the turns the double answered from the route of mark.
func routed(d *modeldouble.Server, mark string) []modeldouble.Request {
	var turns []modeldouble.Request
	for _, r := range d.Turns() {
		if r.Route == mark {
			turns = append(turns, r)
		}
	}
	return turns
}

// mostAtOnce is the largest number of spans that overlap at one moment.
func mostAtOnce(spans [][2]time.Time) int {
	most := 0
	for _, s := range spans {
		n := 0
		for _, o := range spans {
			if !o[0].After(s[0]) && o[1].After(s[0]) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}
