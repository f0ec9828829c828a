package runtime

import (
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		msg       string
		ok, pass  bool
		reasoning string
	}{
		{"the whole message", `{"verdict": "pass", "reasoning": "All criteria hold."}`, true, true, "All criteria hold."},
		{"blank around it", "\n  {\"verdict\":\"fail\",\"reasoning\":\"No test.\"}\n\n", true, false, "No test."},
		{"a json fence", "I read the diff.\n\n```json\n{\"verdict\": \"fail\", \"reasoning\": \"parse.go:41 still crashes.\"}\n```\n", true, false, "parse.go:41 still crashes."},
		{"the last fence wins", "```json\n{\"verdict\": \"fail\", \"reasoning\": \"draft\"}\n```\nOn second thought:\n```\n{\"verdict\": \"pass\", \"reasoning\": \"final\"}\n```", true, true, "final"},
		{"a longer fence", "````json\n{\"verdict\": \"pass\", \"reasoning\": \"uses ``` inside\"}\n````", true, true, "uses ``` inside"},
		{"an object after prose", "The tests pass and the fix is at the cause.\n\n{\"verdict\": \"PASS\", \"reasoning\": \"ok\"}", true, true, "ok"},
		{"the last object wins", `Example: {"verdict": "pass"}. My verdict: {"verdict": "fail", "reasoning": "see {this}"}`, true, false, "see {this}"},
		{"a nested object", `Verdict: {"verdict": "fail", "reasoning": "missing", "details": {"criterion": 2}}`, true, false, "missing"},
		{"objects without a verdict are skipped", `{"verdict": "pass", "reasoning": "r"} and then {"note": 1}`, true, true, "r"},
		{"no reasoning", `{"verdict": "fail"}`, true, false, ""},
		{"reasoning not a string", `{"verdict": "fail", "reasoning": ["a", "b"]}`, true, false, `["a","b"]`},
		{"no verdict", "The work looks fine to me.", false, false, ""},
		{"an unknown verdict", `{"verdict": "maybe", "reasoning": "unsure"}`, false, false, ""},
		{"a verdict that is not a string", `{"verdict": true}`, false, false, ""},
		{"broken JSON", `{"verdict": "pass", "reasoning": "unterminated}`, false, false, ""},
		{"empty", "", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pass, reasoning, ok := ParseVerdict(tc.msg)
			if ok != tc.ok || pass != tc.pass || reasoning != tc.reasoning {
				t.Errorf("ParseVerdict(%q) = %v, %q, %v; want %v, %q, %v", tc.msg, pass, reasoning, ok, tc.pass, tc.reasoning, tc.ok)
			}
		})
	}
}

func TestJudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  step.Result
		want judgement
	}{
		{"pass", step.Result{Result: `{"verdict":"pass","reasoning":"fine"}`}, judgement{verdict: record.VerdictPass, reasoning: "fine"}},
		{"fail", step.Result{Result: `{"verdict":"fail","reasoning":"no"}`}, judgement{verdict: record.VerdictFail, reasoning: "no"}},
		{"no verdict", step.Result{Result: "Looks good."}, judgement{inconclusive: true, reason: record.ReasonNoStructuredOutput, err: "its final message holds no JSON verdict"}},
		{"empty", step.Result{}, judgement{inconclusive: true, reason: record.ReasonNoStructuredOutput, err: "its final message was empty"}},
		{
			"max turns",
			step.Result{Failed: true, Cause: "Reached maximum number of turns (16)", Session: harness.SessionEnd{MaxTurns: true, Worked: true}},
			judgement{inconclusive: true, reason: record.ReasonMaxTurns, err: "reached its turn cap (16)"},
		},
		{
			"timeout",
			step.Result{Failed: true, TimedOut: true, Cause: "timed out after 15m0s", Session: harness.SessionEnd{Worked: true}},
			judgement{inconclusive: true, reason: record.ReasonTimeout, err: "timed out after 15m0s"},
		},
		{
			"failed after working",
			step.Result{Failed: true, Cause: "claude ended with error_during_execution", Session: harness.SessionEnd{Worked: true}},
			judgement{inconclusive: true, reason: record.ReasonUnknown, err: "claude ended with error_during_execution"},
		},
		{
			"could not start",
			step.Result{Failed: true, Cause: "Not logged in · Please run /login"},
			judgement{broken: "Not logged in · Please run /login"},
		},
		{
			"a verdict from a failed session does not count",
			step.Result{Failed: true, Result: `{"verdict":"pass"}`, Cause: "exit status 1", Session: harness.SessionEnd{Worked: true}},
			judgement{inconclusive: true, reason: record.ReasonUnknown, err: "exit status 1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := judged(tc.res, 16); got != tc.want {
				t.Errorf("judged() = %+v; want %+v", got, tc.want)
			}
		})
	}
}
