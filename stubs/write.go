package stubs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Format writes s as a stubs file that reads back as the same stubs, each
// result written out (a result_file's text included), so that the file
// stands alone: the copy a stubbed run keeps in its folder, which resume
// answers from.
func Format(s *Stubs) []byte {
	var b bytes.Buffer
	b.WriteString("# The stubs this run was answered from (cairn resume answers from them again).\n")
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "\n[stubs.%s]\n", tomlKey(st.Step))
		if st.Exit.Set {
			fmt.Fprintf(&b, "exit = %d\n", st.Exit.Value)
		}
		if st.Stdout.Set {
			fmt.Fprintf(&b, "stdout = %s\n", tomlString(st.Stdout.Value))
		}
		if st.AttemptsAt.IsValid() {
			for _, a := range st.Attempts {
				fmt.Fprintf(&b, "[[stubs.%s.attempts]]\n", tomlKey(st.Step))
				writeAttempt(&b, &a)
			}
			continue
		}
		if len(st.Attempts) == 1 {
			writeAttempt(&b, &st.Attempts[0])
		}
	}
	return b.Bytes()
}

// writeAttempt writes the keys of an attempt that say something.
func writeAttempt(b *bytes.Buffer, a *Attempt) {
	if a.ResultAt.IsValid() || a.ResultFile.Set {
		fmt.Fprintf(b, "result = %s\n", tomlString(a.Result))
	}
	if a.Outcome.Set {
		fmt.Fprintf(b, "outcome = %s\n", tomlString(a.Outcome.Value))
	}
	if a.Cause.Set {
		fmt.Fprintf(b, "cause = %s\n", tomlString(a.Cause.Value))
	}
	if u := usageTOML(a.Usage); u != "" {
		fmt.Fprintf(b, "usage = %s\n", u)
	}
	if a.Verdict.Set {
		fmt.Fprintf(b, "verdict = %s\n", tomlString(a.Verdict.Value))
	}
}

// usageTOML is u as an inline table, "" when it holds no figure.
func usageTOML(u ir.Usage) string {
	var parts []string
	for _, f := range []struct {
		key string
		n   *int64
	}{{"turns", u.Turns}, {"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens}, {"cache_read_tokens", u.CacheReadTokens}, {"cache_write_tokens", u.CacheWriteTokens}} {
		if f.n != nil {
			parts = append(parts, fmt.Sprintf("%s = %d", f.key, *f.n))
		}
	}
	if u.CostUSD != nil {
		parts = append(parts, "cost_usd = "+strconv.FormatFloat(*u.CostUSD, 'g', -1, 64))
	}
	if len(parts) == 0 {
		return ""
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlString is s as a TOML basic string: JSON's escapes are TOML's.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return `""`
	}
	// JSON escapes U+007F (DEL) not, and TOML wants it escaped.
	return strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\x7f", `\u007f`)
}

// tomlKey is a step name as a TOML key: bare when it can be (a valid
// step name always can), quoted otherwise.
func tomlKey(name string) string {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return tomlString(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// Skeleton is a stubs file for plan, commented: a [stubs.STEP] table for
// every session step that succeeds with a placeholder result naming its
// step (a judged step's judge passing it), one for every catalogue step
// that succeeds, and a commented-out one for every command step, which
// runs for real unless stubbed. Used as is, every session succeeds.
func Skeleton(plan *ir.Plan) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Stubs of process %q (%s), for a stubbed run that starts no agent:\n", plan.Process, plan.File)
	fmt.Fprintf(&b, "#   cairn run %s --stubs FILE, or stubs = \"FILE\" in a test file (cairn test).\n", plan.File)
	b.WriteString("# A [stubs.STEP] table answers that step's sessions: result (or result_file, relative to\n")
	b.WriteString("# this file), outcome = \"succeeded\" or \"failed\" (with cause), usage = { turns, cost_usd, … },\n")
	b.WriteString("# and verdict = \"pass\", \"fail\" or \"none\" for its judge. A step with review retries takes\n")
	b.WriteString("# [[stubs.STEP.attempts]], one per session, in order (the last repeats).\n")
	for _, st := range Steps(plan) {
		kinds := Kinds(st)
		switch {
		case len(kinds) == 1 && kinds[0] == ir.Command:
			fmt.Fprintf(&b, "\n# [stubs.%s]  # command step: runs for real unless stubbed\n", tomlKey(st.Name))
			b.WriteString("# exit = 0\n# stdout = \"\"\n")
			continue
		case len(kinds) == 1 && kinds[0] == ir.Catalogue:
			fmt.Fprintf(&b, "\n[stubs.%s]  # catalogue step %s: a stubbed run never delivers, merges or starts a child run\n", tomlKey(st.Name), st.Actions[0].Catalogue)
			b.WriteString("outcome = \"succeeded\"  # or \"failed\", with cause = \"…\"\n")
			continue
		}
		fmt.Fprintf(&b, "\n[stubs.%s]  # %s\n", tomlKey(st.Name), describe(st))
		if slices.Contains(kinds, ir.Command) {
			b.WriteString("exit = 0  # its command's exit status\n")
		}
		review := st.Validate != nil && st.Validate.Severity == ir.SeverityReview
		if review {
			b.WriteString("# With review retries: [[stubs." + tomlKey(st.Name) + ".attempts]] tables instead, one per session.\n")
		}
		fmt.Fprintf(&b, "result = %s\n", tomlString(Placeholder(st.Name)))
		b.WriteString("# outcome = \"failed\"\n# cause = \"…\"\n# usage = { turns = 1, cost_usd = 0.01 }\n")
		if st.Validate != nil && len(st.Validate.Instructions) > 0 {
			b.WriteString("verdict = \"pass\"  # its judge: \"pass\", \"fail\" or \"none\" (inconclusive)\n")
		}
	}
	return b.Bytes()
}

// describe says what a session step runs, for its skeleton's comment.
func describe(st *ir.PlanStep) string {
	for _, a := range st.Actions {
		if a.Kind != ir.Session {
			continue
		}
		what := "session step, inline prompt"
		if a.Skill != nil {
			what = "session step, skill " + a.Skill.Name
		}
		if a.Harness != nil {
			what += ", on " + a.Harness.Value
		}
		return what
	}
	return "session step"
}
