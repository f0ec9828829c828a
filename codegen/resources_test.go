package codegen

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// TestResourcesWords holds the words a script waits with (jq_short of
// bash/resources.sh.tmpl, run by jq) to internal/machine's: what the
// machine is short of, the load with one decimal, the memory in its
// largest binary unit, and which limits those are. A process without
// [resources], or of commands alone, holds none of it.
func TestResourcesWords(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	plan := featurePlan(ir.PlanAction{Kind: ir.Session, Prompt: "Hi.", Harness: &ir.Setting{Value: "claude"}})
	plan.Resources = ir.PlanResources{MaxLoad: 8, MinFreeMemory: 2 << 30, MinFreeMemoryText: "2GiB", Wait: 30 * time.Minute, WaitText: "30m"}
	script, diags := Bash(plan, Inputs{})
	if len(diags) > 0 {
		t.Fatalf("Bash: %v", diags)
	}
	m := regexp.MustCompile(`(?s)\njq_short='(.*?)'\n`).FindSubmatch(script)
	if m == nil {
		t.Fatal("the script holds no jq_short")
	}
	for _, want := range []string{"resources_load='8' resources_load_text='8.0'", "resources_memory=2147483648 resources_memory_text='2GiB'",
		"resources_wait_us=1800000000 resources_wait_text='30m'", `resources_wait "$step"`} {
		if !strings.Contains(string(script), want) {
			t.Errorf("the script lacks %q", want)
		}
	}
	for _, c := range []struct{ load, avail, want string }{
		{"11.24", "1610612736", "for the load average to fall below 8.0 (now 11.2) and for 2GiB of free memory (now 1.5GiB)\nload memory"},
		{"8.00", "536870912", "for 2GiB of free memory (now 512.0MiB)\nmemory"},
		{"9", "3221225472", "for the load average to fall below 8.0 (now 9.0)\nload"},
		{"0.5", "500", "for 2GiB of free memory (now 500B)\nmemory"},
		{"0.5", "3221225472", "\n"},
	} {
		out, err := exec.Command("jq", "-n", "-r", "--arg", "load", c.load, "--arg", "avail", c.avail, "--arg", "max", "8",
			"--arg", "max_text", "8.0", "--arg", "min", "2147483648", "--arg", "min_text", "2GiB", string(m[1])).Output()
		if err != nil {
			t.Fatalf("jq: %v", err)
		}
		if got := strings.TrimSuffix(string(out), "\n"); got != c.want {
			t.Errorf("load %s, %s bytes free: %q; want %q", c.load, c.avail, got, c.want)
		}
	}

	plan.Resources = ir.PlanResources{}
	if script, _ := Bash(plan, Inputs{}); strings.Contains(string(script), "resources_wait") {
		t.Error("a script without [resources] waits for them")
	}
	plan = featurePlan(ir.PlanAction{Kind: ir.Command, Command: "echo hi"})
	plan.Resources = ir.PlanResources{MaxLoad: 8, Wait: time.Minute, WaitText: "1m"}
	if script, _ := Bash(plan, Inputs{}); strings.Contains(string(script), "resources_wait") {
		t.Error("a script of commands waits for [resources]")
	}
}
