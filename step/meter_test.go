//go:build unix

package step

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
)

// testMeter is a Meter that gives left, or refuses with refuse, and keeps
// what it was told after each session; it fails one with after.
type testMeter struct {
	left    float64
	refuse  error
	after   error
	resumed []string
	ends    []harness.SessionEnd
}

func (m *testMeter) Before() (float64, error) { return m.left, m.refuse }

func (m *testMeter) After(resumed string, end harness.SessionEnd) error {
	m.resumed = append(m.resumed, resumed)
	m.ends = append(m.ends, end)
	return m.after
}

// TestRunPromptMeter: a session the Meter refuses never starts and fails
// with its cause; one it lets start gets what is left (claude
// --max-budget-usd) and is told to it as it ends, with the session it
// resumed; an error of After fails the session with that cause.
func TestRunPromptMeter(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "fix")
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	inv := Invocation(session("claude", "opus", "", 30), "Fix it.")

	spent := errors.New("budget spent: $4.02 of $4.00")
	f.sc.Meter = &testMeter{refuse: spent}
	res := RunPrompt(context.Background(), f.sc, h, inv)
	if !res.Failed || !res.Budget || res.Cause != spent.Error() {
		t.Errorf("refused: %+v; want failed for the budget, with its cause", res)
	}
	if _, err := os.Stat(f.log); err == nil {
		t.Errorf("a refused session started its CLI")
	}

	m := &testMeter{left: 1.25}
	f.sc.Meter = m
	res = RunPrompt(context.Background(), f.sc, h, inv)
	if res.Failed || res.Budget {
		t.Fatalf("session: %+v", res)
	}
	if argv := f.read(t, "claude", 1, "argv"); !strings.Contains(argv, "--max-budget-usd\n1.25\n") {
		t.Errorf("argv %q; want --max-budget-usd 1.25", argv)
	}
	inv.Resume = res.Session.ID
	m.after = errors.New("step budget spent: $1.42 of $1.25")
	res = RunPrompt(context.Background(), f.sc, h, inv)
	if !res.Failed || !res.Budget || res.Cause != m.after.Error() {
		t.Errorf("after: %+v; want failed with After's cause", res)
	}
	if len(m.ends) != 2 || m.resumed[0] != "" || m.resumed[1] != inv.Resume || m.ends[1].ID != inv.Resume {
		t.Fatalf("After told %q, %+v", m.resumed, m.ends)
	}
	if u := m.ends[1].Used(&m.ends[0]); u.Cost() != 0.0712 || *u.Turns != 3 {
		t.Errorf("the resumed session used %+v; want one run's", u)
	}
	if _, err := os.Stat(filepath.Join(f.log, "claude.3")); err == nil {
		t.Errorf("a third session started")
	}
}
