package expr

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
	"github.com/zclconf/go-cty/cty"
)

// triageSchema is the output schema of the tests' triage step.
const triageSchema = `{"type":"object","required":["severity"],"properties":{"severity":{"enum":["low","high"],"type":"string"},"count":{"type":"integer"},"tickets":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"}}}}}}`

func testEnv() Env {
	return Env{
		Steps:  map[string]cty.Type{"triage": SchemaType([]byte(triageSchema)), "build": cty.NilType},
		Others: []string{"later"},
		Item:   cty.NilType,
	}
}

func TestCheckRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, at, want string
	}{
		{`steps.triage.output.severity == 3`, `steps.triage.output.severity == 3`, `== compares a string with a number, which are never equal`},
		{`steps.triage.output.sevrity == "high"`, `sevrity`, `unknown field "sevrity"; the output's schema has count, severity and tickets (did you mean "severity"?)`},
		{`steps.triag.outcome == "failed"`, `triag`, `unknown step "triag" (did you mean "triage"?)`},
		{`steps.later.outcome == "failed"`, `later`, `step "later" is not one this step waits for; add it to the step's needs`},
		{`steps.build.output.x == 1`, `output`, `step "build" has no output: give it an output_schema`},
		{`steps.build.status == "ok"`, `status`, `steps.build has outcome and output, not "status"`},
		{`upper(steps.build.outcome) == "OK"`, `upper`, `function "upper" is not allowed in when; it takes contains, length, startswith and endswith`},
		{`steps.triage.output.count`, `steps.triage.output.count`, `the expression must be a condition (a boolean), not a number`},
		{`steps.triage.output.count + 1 > 2`, `steps.triage.output.count + 1`, `arithmetic is not allowed in when`},
		{`steps.triage.output.severity > 2`, `steps.triage.output.severity`, `> takes a number, not a string`},
		{`item == 1`, `item`, `item is set only in a step with for_each`},
		{`length(steps.triage.output.tickets) > 0 && !steps.build.outcome`, `steps.build.outcome`, `! takes a boolean, not a string`},
		{`steps.x ? true : false`, `steps.x ? true : false`, `a conditional (?:) is not allowed in when`},
		{`"${steps.build.outcome}" == "x"`, `"${steps.build.outcome}"`, `a string with interpolations is not allowed in when`},
	} {
		x, errs := Parse(tc.src)
		if len(errs) > 0 {
			t.Errorf("%s: parse: %v", tc.src, errs)
			continue
		}
		errs = x.Check(testEnv())
		if len(errs) == 0 {
			t.Errorf("%s: no refusal; want %q", tc.src, tc.want)
			continue
		}
		e := errs[0]
		if !strings.HasPrefix(e.Message, tc.want) {
			t.Errorf("%s: %q; want %q", tc.src, e.Message, tc.want)
		}
		if got := tc.src[e.Start:e.End]; got != tc.at {
			t.Errorf("%s: refused at %q; want at %q", tc.src, got, tc.at)
		}
	}
}

func TestCheckAccepts(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		`steps.triage.output.severity == "high"`,
		`steps.build.outcome != "failed" && (steps.triage.output.count >= 2 || !contains(["low"], steps.triage.output.severity))`,
		`length(steps.triage.output.tickets) > 0 && startswith(steps.triage.output.tickets[0].title, "fix")`,
		`endswith(steps.build.outcome, "ed")`,
	} {
		x, errs := Parse(src)
		if len(errs) == 0 {
			errs = x.Check(testEnv())
		}
		if len(errs) > 0 {
			t.Errorf("%s: %v", src, errs)
		}
	}
	if _, errs := Parse(`steps.a.outcome ==`); len(errs) == 0 {
		t.Errorf("a broken expression parsed")
	}
}

// TestEvalAndJQAgree evaluates expressions with Eval and with their jq
// program (gojq, as jq reads it): both give the same answer, or both fail.
func TestEvalAndJQAgree(t *testing.T) {
	t.Parallel()
	in := Input{Steps: map[string]Step{
		"triage": {Outcome: "succeeded", Output: json.RawMessage(`{"severity":"high","count":3,"tickets":[{"title":"fix the loop"},{"title":"docs"}]}`)},
		"build":  {Outcome: "failed"},
	}}
	for _, tc := range []struct {
		src  string
		want bool
		fail bool
	}{
		{src: `steps.triage.output.severity == "high"`, want: true},
		{src: `steps.triage.output.severity == "low"`, want: false},
		{src: `steps.build.outcome == "failed" && steps.triage.output.count > 2`, want: true},
		{src: `!(steps.triage.output.count <= 3)`, want: false},
		{src: `contains(["low", "high"], steps.triage.output.severity)`, want: true},
		{src: `length(steps.triage.output.tickets) == 2 && length("héllo") == 5`, want: true},
		{src: `startswith(steps.triage.output.tickets[0].title, "fix") && endswith(steps.build.outcome, "led")`, want: true},
		{src: `steps.triage.output.count == -3 || steps.triage.output.count >= 3.0`, want: true},
		{src: `steps.triage.output.tickets[5].title == "x"`, fail: true},
		{src: `steps.triage.output.count`, fail: true},
	} {
		x, errs := Parse(tc.src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.src, errs)
		}
		got, err := x.Eval(in)
		if (err != nil) != tc.fail || err == nil && got != tc.want {
			t.Errorf("Eval(%s) = %v, %v; want %v (fails: %v)", tc.src, got, err, tc.want, tc.fail)
		}
		prog, err := x.JQ()
		if err != nil {
			t.Fatalf("%s: JQ: %v", tc.src, err)
		}
		q, err := gojq.Parse(prog)
		if err != nil {
			t.Fatalf("%s: jq %s: %v", tc.src, prog, err)
		}
		b, _ := json.Marshal(in)
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		v, ok := q.Run(doc).Next()
		jqErr, isErr := v.(error)
		switch {
		case !ok:
			t.Errorf("%s: jq gave nothing", tc.src)
		case isErr != tc.fail && !(tc.fail && v == nil):
			t.Errorf("jq %s = %v (%v); want %v (fails: %v)", prog, v, jqErr, tc.want, tc.fail)
		case !isErr && !tc.fail && v != tc.want:
			t.Errorf("jq %s = %v; want %v", prog, v, tc.want)
		}
	}
}
