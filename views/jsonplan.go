package views

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ir"
)

// The appenders below write a plan's compact JSON as json.Encoder (HTML
// left unescaped) writes the plan withArrays makes, byte for byte, without
// reflection: the JSON report of a large check is mostly plans, and
// encoding them field by field through reflect was most of rendering it.
// They follow the types' json tags (order, omitempty, "-");
// TestPlanJSONKeys fails when a field of these types is not written here.

// appendPlanHead appends p's JSON up to its stages: `{"process":...,
// "worktrees":[...],"stages":`.
func appendPlanHead(b []byte, p *ir.Plan) ([]byte, error) {
	var err error
	b = append(b, `{"process":`...)
	b = appendString(b, p.Process)
	b = append(b, `,"file":`...)
	b = appendString(b, p.File)
	b = append(b, `,"format":`...)
	b = appendString(b, string(p.Format))
	b = append(b, `,"description":`...)
	b = appendString(b, p.Description)
	b = append(b, `,"issue":`...)
	b = appendString(b, p.Issue)
	b = append(b, `,"commit":`...)
	b = strconv.AppendBool(b, p.Commit)
	b = append(b, `,"run_expiry":`...)
	b = appendString(b, p.RunExpiry)
	b = append(b, `,"failed_run_expiry":`...)
	b = appendString(b, p.FailedRunExpiry)
	b = append(b, `,"limits":`...)
	if b, err = appendLimits(b, &p.Limits); err != nil {
		return b, err
	}
	if p.Repair != nil {
		b = append(b, `,"repair":`...)
		if b, err = appendAction(b, p.Repair); err != nil {
			return b, err
		}
	}
	b = append(b, `,"worktrees":[`...)
	for i := range p.Worktrees {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWorktree(b, &p.Worktrees[i])
	}
	return append(b, `],"stages":`...), nil
}

// appendPlanTail appends what follows p's stages in its JSON:
// `,"harnesses":[...]}`.
func appendPlanTail(b []byte, p *ir.Plan) []byte {
	b = append(b, `,"harnesses":[`...)
	for i := range p.Harnesses {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendHarness(b, &p.Harnesses[i])
	}
	return append(b, "]}"...)
}

// appendPlan appends p's JSON, handing b to spill after each step, which
// returns what is left of it to append to (all of it, or an emptied b
// once written out).
func appendPlan(b []byte, p *ir.Plan, spill func([]byte) []byte) ([]byte, error) {
	b, err := appendPlanHead(b, p)
	if err != nil {
		return b, err
	}
	b = append(b, '[')
	for i, stage := range p.Stages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j := range stage {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = appendStep(b, &stage[j]); err != nil {
				return b, err
			}
			b = spill(b)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	return appendPlanTail(b, p), nil
}

// appendLimits appends l's JSON, its protected paths an array even when nil.
func appendLimits(b []byte, l *ir.PlanLimits) ([]byte, error) {
	b = append(b, `{"repair_cap":`...)
	b = appendIntSetting(b, &l.RepairCap)
	b = append(b, `,"self_merge":`...)
	b = strconv.AppendBool(b, l.SelfMerge)
	b = append(b, `,"merge":`...)
	b = appendSetting(b, &l.Merge)
	b = append(b, `,"protected_paths":`...)
	b = appendStrings(b, l.ProtectedPaths)
	if l.BudgetUSD != nil {
		b = append(b, `,"budget_usd":`...)
		var err error
		if b, err = appendFloatSetting(b, l.BudgetUSD); err != nil {
			return b, err
		}
	}
	if l.DailyBudgetUSD != nil {
		b = append(b, `,"daily_budget_usd":`...)
		var err error
		if b, err = appendFloatSetting(b, l.DailyBudgetUSD); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendWorktree appends w's JSON.
func appendWorktree(b []byte, w *ir.PlanWorktree) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, w.Name)
	b = append(b, `,"kind":`...)
	b = appendString(b, w.Kind)
	b = append(b, `,"base":`...)
	b = appendString(b, w.Base)
	b = append(b, `,"branch":`...)
	b = appendString(b, w.Branch)
	b = append(b, `,"implicit":`...)
	b = strconv.AppendBool(b, w.Implicit)
	b = append(b, `,"copy":[`...)
	for i, c := range w.Copy {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"glob":`...)
		b = appendString(b, c.Glob)
		b = append(b, `,"source":`...)
		b = appendString(b, c.Source)
		b = append(b, '}')
	}
	b = append(b, `],"setup":`...)
	b = appendString(b, w.Setup)
	b = append(b, `,"setup_timeout":`...)
	b = appendString(b, w.SetupTimeout)
	return append(b, '}')
}

// appendStep appends s's JSON, its lists empty rather than nil as
// stepWithArrays makes them.
func appendStep(b []byte, s *ir.PlanStep) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = appendString(b, s.Name)
	b = append(b, `,"description":`...)
	b = appendString(b, s.Description)
	b = append(b, `,"worktree":`...)
	b = appendString(b, s.Worktree)
	b = append(b, `,"parallel":`...)
	b = appendString(b, s.Parallel)
	b = append(b, `,"needs":`...)
	b = appendStrings(b, s.Needs)
	b = append(b, `,"needs_written":`...)
	b = strconv.AppendBool(b, s.NeedsWritten)
	b = append(b, `,"when":`...)
	b = appendString(b, s.When)
	b = append(b, `,"for_each":`...)
	b = appendString(b, s.ForEach)
	b = append(b, `,"max_items":`...)
	b = strconv.AppendInt(b, int64(s.MaxItems), 10)
	b = append(b, `,"optional":`...)
	b = strconv.AppendBool(b, s.Optional)
	b = append(b, `,"timeout":`...)
	b = appendString(b, s.Timeout)
	b = append(b, `,"env":[`...)
	for i := range s.Env {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, s.Env[i].Name)
		b = append(b, `,"value":`...)
		b = appendString(b, s.Env[i].Value)
		b = append(b, '}')
	}
	b = append(b, `],"actions":[`...)
	for i := range s.Actions {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendAction(b, &s.Actions[i]); err != nil {
			return b, err
		}
	}
	b = append(b, `],"precheck":`...)
	b = appendPhase(b, s.Precheck)
	b = append(b, `,"validate":`...)
	b = appendPhase(b, s.Validate)
	if o := s.Output; o != nil {
		b = append(b, `,"output":{"schema":`...)
		b = appendString(b, o.Schema)
		b = append(b, `,"source":`...)
		b = appendString(b, o.Source)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendAction appends a's JSON: its kind, then only what the action sets.
func appendAction(b []byte, a *ir.PlanAction) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = appendString(b, string(a.Kind))
	if a.Skill != nil {
		b = append(b, `,"skill":{"name":`...)
		b = appendString(b, a.Skill.Name)
		b = append(b, `,"path":`...)
		b = appendString(b, a.Skill.Path)
		b = append(b, `,"source":`...)
		b = appendString(b, a.Skill.Source)
		b = append(b, '}')
	}
	b = appendOptString(b, `,"prompt":`, a.Prompt)
	b = appendOptString(b, `,"command":`, a.Command)
	b = appendOptString(b, `,"catalogue":`, a.Catalogue)
	b = appendOptString(b, `,"process":`, a.Process)
	b = appendOptString(b, `,"spec_process":`, a.SpecProcess)
	b = appendOptSetting(b, `,"harness":`, a.Harness)
	b = appendOptSetting(b, `,"model":`, a.Model)
	b = appendOptSetting(b, `,"effort":`, a.Effort)
	b = appendOptSetting(b, `,"access":`, a.Access)
	if a.MaxTurns != nil {
		b = append(b, `,"max_turns":`...)
		b = appendIntSetting(b, a.MaxTurns)
	}
	if a.Sandbox != nil {
		b = append(b, `,"sandbox":{"active":`...)
		b = strconv.AppendBool(b, a.Sandbox.Active)
		b = append(b, `,"detail":`...)
		b = appendString(b, a.Sandbox.Detail)
		b = append(b, '}')
	}
	if a.BudgetUSD != nil {
		b = append(b, `,"budget_usd":`...)
		var err error
		if b, err = appendFloatSetting(b, a.BudgetUSD); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendPhase appends ph's JSON, null for a step without the phase.
func appendPhase(b []byte, ph *ir.PlanPhase) []byte {
	if ph == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"shells":`...)
	b = appendStrings(b, ph.Shells)
	b = append(b, `,"instructions":`...)
	b = appendStrings(b, ph.Instructions)
	b = append(b, `,"whys":`...)
	b = appendStrings(b, ph.Whys)
	b = append(b, `,"severity":`...)
	b = appendString(b, ph.Severity)
	b = appendOptSetting(b, `,"model":`, ph.Model)
	b = appendOptSetting(b, `,"harness":`, ph.Harness)
	b = appendOptSetting(b, `,"access":`, ph.Access)
	return append(b, '}')
}

// appendHarness appends h's JSON, logged_in null when unknown.
func appendHarness(b []byte, h *ir.HarnessStatus) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, h.Name)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, h.OK)
	b = append(b, `,"checked":`...)
	b = strconv.AppendBool(b, h.Checked)
	b = append(b, `,"detail":`...)
	b = appendString(b, h.Detail)
	b = append(b, `,"logged_in":`...)
	if h.LoggedIn == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, *h.LoggedIn)
	}
	b = appendOptString(b, `,"login":`, h.Login)
	return append(b, '}')
}

// appendSetting appends s's JSON.
func appendSetting(b []byte, s *ir.Setting) []byte {
	b = append(b, `{"value":`...)
	b = appendString(b, s.Value)
	b = append(b, `,"source":`...)
	b = appendString(b, string(s.Source))
	b = appendOptString(b, `,"tier":`, s.Tier)
	b = appendOptString(b, `,"tier_map":`, s.TierMap)
	b = appendOptString(b, `,"passed":`, s.Passed)
	return append(b, '}')
}

// appendOptSetting appends key and s, or nothing for a nil s (omitempty).
func appendOptSetting(b []byte, key string, s *ir.Setting) []byte {
	if s == nil {
		return b
	}
	return appendSetting(append(b, key...), s)
}

// appendIntSetting appends s's JSON.
func appendIntSetting(b []byte, s *ir.IntSetting) []byte {
	b = append(b, `{"value":`...)
	b = strconv.AppendInt(b, int64(s.Value), 10)
	b = append(b, `,"source":`...)
	b = appendString(b, string(s.Source))
	b = appendOptString(b, `,"ignored":`, s.Ignored)
	return append(b, '}')
}

// appendFloatSetting appends s's JSON, refusing a value JSON cannot hold.
func appendFloatSetting(b []byte, s *ir.FloatSetting) ([]byte, error) {
	b = append(b, `{"value":`...)
	b, err := appendFloat(b, s.Value)
	if err != nil {
		return b, err
	}
	b = append(b, `,"source":`...)
	b = appendString(b, string(s.Source))
	return append(b, '}'), nil
}

// appendFloat appends f as encoding/json does (ES6's number to string:
// %f between 1e-6 and 1e21, else %e with its exponent unpadded), and
// refuses NaN and the infinities as it does.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendStrings appends ss as an array, empty for nil.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendOptString appends key and s, or nothing for an empty s (omitempty).
func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// plainByte holds the ASCII bytes a JSON string holds as they are: not a
// control character, a quote or a backslash (<, > and & are left, as
// SetEscapeHTML(false) leaves them).
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as encoding/json quotes a string without
// HTML escaping: \" \\ \b \f \n \r \t, other control characters as \u00XX,
// each byte of invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
