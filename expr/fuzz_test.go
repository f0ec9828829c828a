package expr

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/itchyny/gojq"
	"github.com/zclconf/go-cty/cty"
)

// FuzzExpr parses whatever a when may hold: no input makes Parse, Check,
// Eval or JQ panic, every refusal lies inside the source, and an
// expression the type check accepts gives the same answer from Eval and
// from its jq program, or fails in both with the same words, over a typed
// output and over one no schema types (step loose: nulls, numbers in
// strings).
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`steps.triage.output.severity == "high"`,
		`steps.build.outcome != "failed" && (steps.triage.output.count >= 2 || !contains(["low"], steps.triage.output.severity))`,
		`length(steps.triage.output.tickets) > 0 && startswith(steps.triage.output.tickets[0].title, "fix")`,
		`endswith(steps.build.outcome, "ed") || item == 3`,
		`steps.triage.output["count"] == -1.5e3`,
		`"${x}" == "a" ? 1 : [for s in x: s]`,
		`steps.a.outcome ==`,
		`steps.triage.output.tickets`,
		`["api", "web"]`,
		`[for t in steps.triage.output.tickets: t.title]`,
		`steps.loose.output.n < 3 || !steps.loose.output.z`,
		`contains(steps.loose.output.l, steps.loose.output.z) && startswith(steps.loose.output.n, "5")`,
	} {
		f.Add(s)
	}
	in := Input{Steps: map[string]Step{
		"triage": {Outcome: "succeeded", Output: json.RawMessage(`{"severity":"high","count":3,"tickets":[{"title":"fix the loop"}]}`)},
		"build":  {Outcome: "failed"},
		"loose":  {Outcome: "succeeded", Output: json.RawMessage(`{"n":"5","z":null,"b":"true","l":[1,null,"x"],"o":{"k":[]}}`)},
	}}
	b, _ := json.Marshal(in)
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		f.Fatal(err)
	}
	env := testEnv()
	env.Steps["loose"] = cty.DynamicPseudoType
	f.Fuzz(func(t *testing.T, src string) {
		x, errs := Parse(src)
		for _, e := range errs {
			if e.Start < 0 || e.End > len(src)+1 || e.Start > e.End {
				t.Fatalf("%q: refusal at %d-%d, outside the source", src, e.Start, e.End)
			}
		}
		if x == nil {
			return
		}
		errs = x.Check(env)
		for _, e := range errs {
			if e.Start < 0 || e.End > len(src)+1 || e.Start > e.End {
				t.Fatalf("%q: refusal %q at %d-%d, outside the source", src, e.Message, e.Start, e.End)
			}
		}
		fuzzList(t, x, src, env, in, doc)
		got, evalErr := x.Eval(in)
		prog, err := x.JQ()
		if len(errs) > 0 || err != nil {
			return
		}
		q, err := gojq.Parse(prog)
		if err != nil {
			t.Fatalf("%q: its jq does not parse: %v\n%s", src, err, prog)
		}
		v, ok := q.Run(doc).Next()
		if !ok {
			t.Fatalf("%q: jq gave nothing", src)
		}
		jqErr, jqFailed := v.(error)
		if jqFailed != (evalErr != nil) || jqFailed && jqErr.Error() != "error: "+evalErr.Error() {
			t.Fatalf("%q: Eval = %v, %v; jq = %v", src, got, evalErr, v)
		}
		if !jqFailed && v != got {
			t.Fatalf("%q: Eval = %v; jq = %v", src, got, v)
		}
	})
}

// fuzzList checks x as a for_each: CheckList's refusals lie inside src,
// and one it accepts gives the same items from Items and from ItemsJQ's
// program, or fails in both.
func fuzzList(t *testing.T, x *Expr, src string, env Env, in Input, doc any) {
	_, errs := x.CheckList(env)
	for _, e := range errs {
		if e.Start < 0 || e.End > len(src)+1 || e.Start > e.End {
			t.Fatalf("%q: list refusal %q at %d-%d, outside the source", src, e.Message, e.Start, e.End)
		}
	}
	items, itemsErr := x.Items(in)
	prog, err := x.ItemsJQ()
	if len(errs) > 0 || err != nil {
		return
	}
	q, err := gojq.Parse(prog)
	if err != nil {
		t.Fatalf("%q: its list's jq does not parse: %v\n%s", src, err, prog)
	}
	v, ok := q.Run(doc).Next()
	if !ok {
		t.Fatalf("%q: jq gave no list", src)
	}
	jqErr, jqFailed := v.(error)
	if jqFailed != (itemsErr != nil) || jqFailed && jqErr.Error() != "error: "+itemsErr.Error() {
		t.Fatalf("%q: Items = %s, %v; jq = %v", src, items, itemsErr, v)
	}
	if jqFailed {
		return
	}
	want, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(want, &a)
	_ = json.Unmarshal(got, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%q: Items = %s; jq = %s", src, want, got)
	}
}
