package stubs

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/tomldoc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// Load reads the stubs file at file (a regular file, capped, as a process
// file is read). A file that cannot be read is one diagnostic.
func Load(file string) (*Stubs, []ir.Diagnostic) {
	src, err := source.ReadFile(file, "")
	if err != nil {
		return &Stubs{File: file}, []ir.Diagnostic{cannotRead(file, "stubs file", err)}
	}
	return Read(file, src)
}

// cannotRead is the diagnostic of a file that cannot be read.
func cannotRead(file, what string, err error) ir.Diagnostic {
	return ir.Diagnostic{Rule: ir.RuleSyntax, Severity: ir.Error, Range: ir.FileStart(file), Message: fmt.Sprintf("cannot read the %s: %v", what, err)}
}

// Read reads src, the stubs file named file: its [stubs.STEP] tables, with
// every syntax error, wrong type, unknown key and invalid value it finds,
// sorted. A result_file is only named here: ReadResults reads it. Its strings
// share src's bytes (see tomldoc.ReadTOMLDoc): src must not change once it
// is read.
func Read(file string, src []byte) (*Stubs, []ir.Diagnostic) {
	src = source.Text(src)
	doc, diags := tomldoc.ReadTOMLDoc(file, src)
	rd := &reader{TOMLReader: tomldoc.TOMLReader{Src: src}}
	s := &Stubs{File: file, Src: src}
	for _, e := range doc.Root.Entries {
		if e.Key == "stubs" {
			rd.stubs(s, e)
			continue
		}
		rd.UnknownKey(doc.Root, e, "at the top level of a stubs file", stubsFileKeys)
	}
	diags = append(diags, rd.Diags...)
	ir.SortDiagnostics(diags)
	return s, diags
}

// reader reads stubs from a TOML document.
type reader struct {
	tomldoc.TOMLReader
}

func (rd *reader) invalid(at ir.Range, format string, args ...any) {
	rd.Report(ir.RuleInvalidValue, at, nil, format, args...)
}

// stubs reads the stubs table e into s.
func (rd *reader) stubs(s *Stubs, e *tomldoc.TOMLEntry) {
	t := rd.Table(e)
	if t == nil {
		return
	}
	for _, se := range t.Entries {
		if se.Value.Kind != tomldoc.KindTable {
			rd.Report(ir.RuleType, se.Value.Range, nil, "stub %q must be a table, not %s", se.Key, tomldoc.Describe(se.Value))
			continue
		}
		s.Steps = append(s.Steps, rd.stub(se))
	}
}

// stub reads one [stubs.STEP] table.
func (rd *reader) stub(e *tomldoc.TOMLEntry) *Stub {
	st := &Stub{Step: e.Key, At: e.KeyRange, Header: tomldoc.HeaderOf(e)}
	where := fmt.Sprintf("in stub %q", st.Step)
	var own Attempt
	hasOwn := false
	for _, kv := range e.Value.Table.Entries {
		if !slices.Contains(stubKeys, kv.Key) {
			rd.UnknownKey(e.Value.Table, kv, where, stubKeys)
			continue
		}
		st.Keys = append(st.Keys, Key{Name: kv.Key, At: kv.KeyRange})
		switch kv.Key {
		case "attempts":
			st.AttemptsAt = kv.KeyRange
			rd.attempts(st, kv)
		case "exit":
			st.Exit = rd.Int(kv)
		case "stdout":
			st.Stdout = rd.String(kv)
		case "output":
			st.Output = rd.output(kv)
		default:
			hasOwn = true
			rd.attemptKey(&own, kv)
		}
	}
	if st.AttemptsAt.IsValid() && hasOwn {
		for _, k := range st.Keys {
			if slices.Contains(attemptKeys, k.Name) {
				rd.invalid(k.At, "stub %q has attempts: write %q in each attempt, not beside them", st.Step, k.Name)
				break
			}
		}
	}
	if !st.AttemptsAt.IsValid() {
		st.Attempts = []Attempt{own}
	}
	for i := range st.Attempts {
		rd.finish(st.Step, &st.Attempts[i])
	}
	return st
}

// output reads a stub's output = { … }: the step's typed output, a table.
func (rd *reader) output(e *tomldoc.TOMLEntry) ir.Field[*ir.JSONValue] {
	if e.Value.Kind != tomldoc.KindTable {
		rd.TypeError(e, "a table (the step's output)")
		return ir.Field[*ir.JSONValue]{Set: true, Bad: true, Key: e.KeyRange, Range: e.Value.Range}
	}
	v, ok := parse.TOMLJSON(&rd.TOMLReader, e.Key, e.Value)
	return ir.Field[*ir.JSONValue]{Value: v, Set: true, Bad: !ok, Key: e.KeyRange, Range: e.Value.Range}
}

// attempts reads [[stubs.STEP.attempts]], an array of tables.
func (rd *reader) attempts(st *Stub, e *tomldoc.TOMLEntry) {
	if e.Value.Kind != tomldoc.KindArray {
		rd.TypeError(e, "an array of tables")
		return
	}
	if len(e.Value.Items) == 0 {
		rd.invalid(e.Value.Range, "stub %q has no attempts; give at least one", st.Step)
	}
	where := fmt.Sprintf("in an attempt of stub %q", st.Step)
	for _, item := range e.Value.Items {
		if item.Kind != tomldoc.KindTable {
			rd.Report(ir.RuleType, item.Range, nil, "attempts of stub %q must be tables, not %s", st.Step, tomldoc.Describe(item))
			continue
		}
		var a Attempt
		for _, kv := range item.Table.Entries {
			if !slices.Contains(attemptKeys, kv.Key) {
				rd.UnknownKey(item.Table, kv, where, attemptKeys)
				continue
			}
			st.Keys = append(st.Keys, Key{Name: kv.Key, At: kv.KeyRange})
			rd.attemptKey(&a, kv)
		}
		st.Attempts = append(st.Attempts, a)
	}
}

// attemptKey reads one key of an attempt into a.
func (rd *reader) attemptKey(a *Attempt, kv *tomldoc.TOMLEntry) {
	switch kv.Key {
	case "result":
		f := rd.String(kv)
		a.Result, a.ResultAt = f.Value, kv.KeyRange
	case "result_file":
		// Its text is read once the repository is known (ReadResults).
		a.ResultFile = rd.String(kv)
		switch f := a.ResultFile; {
		case f.Bad:
		case f.Value == "":
			rd.invalid(f.Range, "empty result_file; name a file, relative to this one")
			a.ResultFile.Bad = true
		case filepath.IsAbs(filepath.FromSlash(f.Value)):
			rd.invalid(f.Range, "result_file %q is an absolute path; name a file inside the repository, relative to this one", f.Value)
			a.ResultFile.Bad = true
		}
	case "outcome":
		a.Outcome = rd.String(kv)
		rd.Enum(a.Outcome, "outcome", outcomes)
	case "cause":
		a.Cause = rd.String(kv)
	case "usage":
		a.Usage = rd.usage(kv)
	case "verdict":
		a.Verdict = rd.String(kv)
		rd.Enum(a.Verdict, "verdict", verdicts)
	}
}

// finish refuses what an attempt's keys allow only together: result and
// result_file both, a cause of a session that succeeds.
func (rd *reader) finish(step string, a *Attempt) {
	if a.ResultAt.IsValid() && a.ResultFile.Set {
		rd.invalid(a.ResultFile.Key, "stub %q has both result and result_file; keep one", step)
	}
	if a.Cause.Set && !a.Cause.Bad && !a.Failed() && !a.Outcome.Bad {
		rd.invalid(a.Cause.Key, "cause in stub %q, whose outcome is %q; a cause goes with outcome = \"failed\"", step, orDefault(a.Outcome.Value, OutcomeSucceeded))
	}
	if !a.Outcome.Set || a.Outcome.Bad {
		a.Outcome.Value = OutcomeSucceeded
	}
}

// usage reads usage = { turns = 12, cost_usd = 0.84, … }: the figures of
// ir.UsageKeys, counts whole and not negative, the cost a number not
// below 0.
func (rd *reader) usage(e *tomldoc.TOMLEntry) ir.Usage {
	var u ir.Usage
	t := rd.Table(e)
	if t == nil {
		return u
	}
	for _, kv := range t.Entries {
		if !slices.Contains(ir.UsageKeys, kv.Key) {
			rd.UnknownKey(t, kv, "in usage", ir.UsageKeys)
			continue
		}
		if kv.Key == "cost_usd" {
			f := rd.Float(kv)
			if f.Bad {
				continue
			}
			if f.Value < 0 || math.IsInf(f.Value, 0) || math.IsNaN(f.Value) {
				rd.invalid(f.Range, "invalid cost_usd %v; write a cost in US dollars, 0 or more", f.Value)
				continue
			}
			u.CostUSD = ir.Dollars(f.Value)
			continue
		}
		f := rd.Int(kv)
		if f.Bad {
			continue
		}
		if f.Value < 0 {
			rd.invalid(f.Range, "invalid %s %d; it cannot be negative", kv.Key, f.Value)
			continue
		}
		n := ir.Count(int64(f.Value))
		switch kv.Key {
		case "turns":
			u.Turns = n
		case "input_tokens":
			u.InputTokens = n
		case "output_tokens":
			u.OutputTokens = n
		case "cache_read_tokens":
			u.CacheReadTokens = n
		case "cache_write_tokens":
			u.CacheWriteTokens = n
		}
	}
	return u
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
