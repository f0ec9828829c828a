package parse

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

// span formats r as find does.
func span(r ir.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// TestGitHubTable reads a [github] table in each front-end, with the
// ranges of its table, keys and schedule items, as [limits] is read.
func TestGitHubTable(t *testing.T) {
	for _, tc := range []struct {
		file, src               string
		header, runsOn, timeout string
		items                   []string
	}{
		{
			file:   "p.toml",
			src:    "version = 1\n\n[github]\nruns_on = \"self-hosted\"\nschedule = [\"0 3 * * *\", \"*/5 * * * *\"]\ntimeout_minutes = 30\n",
			header: "3:1-3:9", runsOn: "4:11-4:24", timeout: "6:19-6:21", items: []string{"5:13-5:24", "5:26-5:39"},
		},
		{
			file:   "p.hcl",
			src:    "version = 1\n\ngithub {\n  runs_on = \"self-hosted\"\n  schedule = [\"0 3 * * *\", \"*/5 * * * *\"]\n  timeout_minutes = 30\n}\n",
			header: "3:1-3:7", runsOn: "4:13-4:26", timeout: "6:21-6:23", items: []string{"5:15-5:26", "5:28-5:41"},
		},
		{
			file:   "p.procedure.card",
			src:    "---\ngithub:\n  runs-on: self-hosted\n  schedule:\n    - \"0 3 * * *\"\n    - \"*/5 * * * *\"\n  timeout-minutes: 30\n---\n",
			header: "2:1-2:7", runsOn: "3:12-3:23", timeout: "7:20-7:22", items: []string{"5:7-5:18", "6:7-6:20"},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var p *ir.Process
			var diags []ir.Diagnostic
			switch {
			case tc.file == "p.toml":
				p, diags = TOML(tc.file, []byte(tc.src))
			case tc.file == "p.hcl":
				p, diags = HCL(tc.file, []byte(tc.src))
			default:
				p, diags = Card(tc.file, []byte(tc.src))
			}
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
			}
			g := p.GitHub
			if g.RunsOn.Value != "self-hosted" || g.TimeoutMinutes.Value != 30 || !slices.Equal(ir.Values(g.Schedule), []string{"0 3 * * *", "*/5 * * * *"}) {
				t.Errorf("github %q %d %q", g.RunsOn.Value, g.TimeoutMinutes.Value, ir.Values(g.Schedule))
			}
			got := []string{span(g.Header), span(g.RunsOn.Range), span(g.TimeoutMinutes.Range)}
			for _, it := range g.Schedule.Value {
				got = append(got, span(it.Range))
			}
			want := append([]string{tc.header, tc.runsOn, tc.timeout}, tc.items...)
			if !slices.Equal(got, want) {
				t.Errorf("ranges %v; want %v", got, want)
			}
		})
	}
}

// TestGitHubRefusals refuses what a [github] table cannot be, as any table's
// keys are refused: an unknown key (with a suggestion), a wrong type, a
// table that is no table, a second github block.
func TestGitHubRefusals(t *testing.T) {
	for _, tc := range []struct {
		file, src string
		want      []string
	}{
		{"p.toml", "version = 1\n[github]\nrun_on = \"x\"\nschedule = \"0 3 * * *\"\ntimeout_minutes = \"30\"\n", []string{
			`3:1 unknown-key: unknown key "run_on" in [github]; did you mean "runs_on"?`,
			`4:12 type: "schedule" must be an array of strings, not a string`,
			`5:19 type: "timeout_minutes" must be an integer, not a string`,
		}},
		{"p.toml", "version = 1\ngithub = \"ubuntu\"\n", []string{`2:10 type: "github" must be a table, not a string`}},
		{"p.hcl", "version = 1\ngithub {\n  schedules = []\n}\ngithub {}\ngithub = 1\n", []string{
			`3:3 unknown-key: unknown attribute "schedules" in github; did you mean "schedule"?`,
			`5:1 duplicate: block "github" is already defined (related 2:1: first defined here)`,
			`6:1 type: "github" must be a block, github { … }, not an attribute`,
		}},
		{"p.procedure.card", "---\ngithub: [1]\n---\n", []string{`2:9 type: "github" must be a map of keys, not a list`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var diags []ir.Diagnostic
			switch tc.file {
			case "p.toml":
				_, diags = TOML(tc.file, []byte(tc.src))
			case "p.hcl":
				_, diags = HCL(tc.file, []byte(tc.src))
			default:
				_, diags = Card(tc.file, []byte(tc.src))
			}
			if got := sourcetest.DiagLines(diags); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%v\nwant\n\t%v", got, tc.want)
			}
		})
	}
}
