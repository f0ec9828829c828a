package notify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// notifyConfig is a [notify] table with command and, when given, on.
func notifyConfig(command []string, on ...string) ir.PlanNotify {
	return ir.PlanNotify{Command: command, On: on, OnSet: on != nil}
}

func TestNotify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := `echo "$CAIRN_PROCESS $CAIRN_STATUS $CAIRN_RUN" > "$0"`
	n := notifyConfig([]string{"bash", "-c", script, out}, "failure")
	note := Notification{Process: "hunt", Status: record.StatusInterrupted, Run: "/runs/hunt_1"}

	var w strings.Builder
	ran, err := Send(context.Background(), n, note, os.Environ(), &w)
	if !ran || err != nil {
		t.Fatalf("Send = %v, %v; want it run", ran, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "hunt interrupted /runs/hunt_1\n" {
		t.Errorf("the command saw %q", got)
	}

	note.Status = record.StatusSucceeded
	if ran, err := Send(context.Background(), n, note, os.Environ(), &w); ran || err != nil {
		t.Errorf("on = [failure], a success: Send = %v, %v; want it not run", ran, err)
	}
	if ran, _ := Send(context.Background(), notifyConfig([]string{"true"}), note, os.Environ(), &w); !ran {
		t.Errorf("no `on`: a success was not notified")
	}
	if ran, _ := Send(context.Background(), ir.PlanNotify{}, note, os.Environ(), &w); ran {
		t.Errorf("no command: Send ran something")
	}
}

func TestNotifyFailure(t *testing.T) {
	t.Parallel()
	var w strings.Builder
	n := notifyConfig([]string{"bash", "-c", "echo no network >&2; exit 4"})
	ran, err := Send(context.Background(), n, Notification{Status: record.StatusFailed}, os.Environ(), &w)
	if !ran || err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("Send = %v, %v; want it run and failed with exit status 4", ran, err)
	}
	if w.String() != "no network\n" {
		t.Errorf("output %q; want the command's", w.String())
	}
	_, err = Send(context.Background(), notifyConfig([]string{"/no/such/notifier"}), Notification{Status: record.StatusFailed}, os.Environ(), &w)
	if err == nil {
		t.Errorf("a missing command did not fail")
	}
}

func TestNotifyPullRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := `echo "${CAIRN_PR_URL-unset}" > "$0"`
	n := notifyConfig([]string{"bash", "-c", script, out})
	env := append(os.Environ(), EnvPullRequest+"=https://example.com/users/own")
	for _, tc := range []struct{ pr, want string }{
		{"https://github.com/acme/widgets/pull/43", "https://github.com/acme/widgets/pull/43\n"},
		{"", "unset\n"},
	} {
		var w strings.Builder
		if ran, err := Send(context.Background(), n, Notification{Process: "fix", Status: record.StatusSucceeded, Run: "/runs/fix_1", PullRequest: tc.pr}, env, &w); !ran || err != nil {
			t.Fatalf("Send = %v, %v; want it run", ran, err)
		}
		if b, _ := os.ReadFile(out); string(b) != tc.want {
			t.Errorf("pull request %q: the command saw CAIRN_PR_URL %q, want %q", tc.pr, b, tc.want)
		}
	}
}
