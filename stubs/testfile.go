package stubs

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/tomldoc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// TestSuffix ends the name of a test file: hunt.test.toml.
const TestSuffix = parse.TestSuffix

// The statuses and step outcomes a test file's expectations may name.
var (
	statuses = []string{"succeeded", "failed", "inconclusive", "interrupted"}
	stepEnds = []string{"succeeded", "failed", "inconclusive", "skipped", "cancelled", "interrupted"}
)

// Test is one test file (`cairn test`): the process it runs, how, with
// which stubs, and what it expects of the run.
type Test struct {
	File string
	Src  []byte
	// Process names the process: a name, or a path (absolute, or
	// relative to the test file).
	Process   ir.Field[string]
	Directive ir.Field[string]
	Jobs      ir.Field[int]
	BudgetUSD ir.Field[float64]
	// StubsFile is stubs = "FILE"; Stubs the inline [stubs.STEP] tables.
	StubsFile ir.Field[string]
	Stubs     *Stubs
	Expect    Expect
}

// Expect is a test's [expect]: the run's status and exit code, substrings
// of what it printed on stdout, and each named step's outcome.
type Expect struct {
	Status         ir.Field[string]
	Exit           ir.Field[int]
	OutputContains ir.Strings
	Steps          []ir.Pair
	// Outputs are the fields each named step's typed output must hold.
	Outputs []ExpectOutput
}

// ExpectOutput is the fields a step's typed output must hold, as written
// (a JSON object), with where.
type ExpectOutput struct {
	Step   string
	Key    ir.Range
	Fields *ir.JSONValue
}

// LoadTest reads the test file at file, as Load reads a stubs file.
func LoadTest(file string) (*Test, []ir.Diagnostic) {
	src, err := source.ReadFile(file, "")
	if err != nil {
		return &Test{File: file}, []ir.Diagnostic{cannotRead(file, "test file", err)}
	}
	return ReadTest(file, src)
}

// ReadTest reads src, the test file named file, with every syntax error,
// wrong type, unknown key and invalid value it finds, sorted. process is
// required; inline stubs read as a stubs file's do. Its strings share src's
// bytes (see tomldoc.ReadTOMLDoc): src must not change once it is read.
func ReadTest(file string, src []byte) (*Test, []ir.Diagnostic) {
	src = source.Text(src)
	doc, diags := tomldoc.ReadTOMLDoc(file, src)
	rd := &reader{TOMLReader: tomldoc.TOMLReader{Src: src}}
	t := &Test{File: file, Src: src}
	for _, e := range doc.Root.Entries {
		switch e.Key {
		case "process":
			t.Process = rd.String(e)
			if f := t.Process; !f.Bad && strings.TrimSpace(f.Value) == "" {
				rd.invalid(f.Range, "empty process; name the process to run, or its file")
			}
		case "directive":
			t.Directive = rd.String(e)
		case "jobs":
			t.Jobs = rd.Int(e)
			if f := t.Jobs; !f.Bad && f.Value < 0 {
				rd.invalid(f.Range, "invalid jobs %d; want 0 (all at once) or more", f.Value)
			}
		case "budget_usd":
			t.BudgetUSD = rd.Float(e)
			if f := t.BudgetUSD; !f.Bad {
				if err := ir.CheckBudget("budget_usd", ir.Budget{USD: f.Value}); err != nil {
					rd.invalid(f.Range, "%v", err)
				}
			}
		case "stubs":
			if e.Value.Kind == tomldoc.KindString {
				t.StubsFile = rd.String(e)
				continue
			}
			t.Stubs = &Stubs{File: file, Src: src}
			rd.stubs(t.Stubs, e)
		case "expect":
			rd.expect(&t.Expect, e)
		default:
			rd.UnknownKey(doc.Root, e, "at the top level of a test file", testKeys)
		}
	}
	if !t.Process.Set && len(diags) == 0 {
		// The file's start, not its first character: there may be none.
		at := ir.FileStart(file)
		at.End = at.Start
		rd.invalid(at, "test file %q names no process; add process = \"NAME\"", filepath.Base(file))
	}
	diags = append(diags, rd.Diags...)
	ir.SortDiagnostics(diags)
	return t, diags
}

// expect reads [expect] into x.
func (rd *reader) expect(x *Expect, e *tomldoc.TOMLEntry) {
	t := rd.Table(e)
	if t == nil {
		return
	}
	for _, kv := range t.Entries {
		switch kv.Key {
		case "status":
			x.Status = rd.String(kv)
			rd.Enum(x.Status, "status", statuses)
		case "exit":
			x.Exit = rd.Int(kv)
		case "output_contains":
			x.OutputContains = rd.Strings(kv)
		case "outputs":
			ot := rd.Table(kv)
			if ot == nil {
				continue
			}
			for _, oe := range ot.Entries {
				if oe.Value.Kind != tomldoc.KindTable {
					rd.TypeError(oe, "a table (fields of the step's output)")
					continue
				}
				if v, ok := parse.TOMLJSON(&rd.TOMLReader, oe.Key, oe.Value); ok {
					x.Outputs = append(x.Outputs, ExpectOutput{Step: oe.Key, Key: oe.KeyRange, Fields: v})
				}
			}
		case "steps":
			st := rd.Table(kv)
			if st == nil {
				continue
			}
			for _, se := range st.Entries {
				f := rd.String(se)
				if !f.Bad && !slices.Contains(stepEnds, f.Value) {
					s := ir.Suggest(f.Value, stepEnds)
					rd.ReportFixes(ir.RuleInvalidValue, f.Range, ir.Change(rd.Src, f.Range, f.Value, s),
						"invalid outcome %q of step %q; expected %s%s", f.Value, se.Key, ir.OneOf(stepEnds), ir.Meant(s))
					f.Bad = true
				}
				x.Steps = append(x.Steps, ir.Pair{Name: se.Key, Field: f})
			}
		default:
			rd.UnknownKey(t, kv, "in [expect]", expectKeys)
		}
	}
}

// CheckTest refuses the expectations of t that do not fit plan: a step the
// plan lacks (unknown-step).
func CheckTest(t *Test, plan *ir.Plan) []ir.Diagnostic {
	var names []string
	for _, st := range Steps(plan) {
		names = append(names, st.Name)
	}
	var diags []ir.Diagnostic
	for _, o := range t.Expect.Outputs {
		if !slices.Contains(names, o.Step) {
			diags = append(diags, ir.Diagnostic{Rule: RuleUnknownStep, Severity: ir.Error, Range: o.Key, Message: UnknownStep(o.Step, plan.Process, names)})
		}
	}
	for _, p := range t.Expect.Steps {
		if !slices.Contains(names, p.Name) {
			var fixes []ir.Fix
			sug := ir.Suggest(p.Name, names)
			if !slices.ContainsFunc(t.Expect.Steps, func(o ir.Pair) bool { return o.Name == sug }) {
				fixes = ir.Change(t.Src, p.Key, p.Name, sug)
			}
			diags = append(diags, ir.Diagnostic{Rule: RuleUnknownStep, Severity: ir.Error, Range: p.Key, Message: UnknownStep(p.Name, plan.Process, names), Fixes: fixes})
		}
	}
	return diags
}
