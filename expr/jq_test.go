package expr

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/itchyny/gojq"
)

// TestJQSaysWhatEvalSays: where Eval fails, the expression's jq program
// fails with the same words (HCL's, with the range of the traversal step
// that failed), so that a compiled script records the cause cairn run
// records: a field of a skipped step's output (null), a field or an item
// a value lacks, an index of a kind the value cannot take, a result that
// is null or no boolean.
func TestJQSaysWhatEvalSays(t *testing.T) {
	in := Input{Steps: map[string]Step{
		"a": {Outcome: "succeeded", Output: json.RawMessage(`{"n":3,"s":"x","l":[1,2],"o":{"k":null},"z":null}`)},
		"b": {Outcome: "skipped"},
	}}
	doc := inputDoc(t, in)
	for _, c := range []struct{ src, want string }{
		{`steps.b.output.files == 1`, `when:1,15-21: Attempt to get attribute from null value; This value is null, so it does not have any attributes`},
		{`steps.a.output.nope == 1`, `when:1,15-20: Unsupported attribute; This object does not have an attribute named "nope"`},
		{`steps.a.output.s.x == 1`, `when:1,17-19: Unsupported attribute; Can't access attributes on a primitive-typed value (string)`},
		{`steps.a.output.l.x == 1`, `when:1,17-19: Unsupported attribute; This value does not have any attributes`},
		{`steps.a.output.l[5] == 1`, `when:1,17-20: Invalid index; The given key does not identify an element in this collection value`},
		{`steps.b.output[0] == 1`, `when:1,15-18: Attempt to index null value; This value is null, so it does not have any indices`},
		{`steps.a.output.o.k.z == 1`, `when:1,19-21: Attempt to get attribute from null value; This value is null, so it does not have any attributes`},
		{`steps.a.output.n[0] == 1`, `when:1,17-20: Invalid index; This value does not have any indices`},
		{`steps.a.output["nope"] == 1`, `when:1,15-23: Invalid index; The given key does not identify an element in this collection value`},
		{`steps.a.output.l["x"] == 1`, `when:1,17-22: Invalid index; The given key does not identify an element in this collection value: a number is required`},
		{`steps.a.output.o[0] == 1`, `when:1,17-20: Invalid index; The given key does not identify an element in this collection value. An object only supports looking up attributes by name, not by numeric index`},
		{`steps.a.output.l[0].x == 1`, `when:1,20-22: Unsupported attribute; Can't access attributes on a primitive-typed value (number)`},
		{`steps.a.output.z`, `it is null`},
		{`steps.a.output.n`, `it is a number, not a boolean`},
		{`steps.a.output.l`, `it is a list, not a boolean`},
	} {
		x, errs := Parse(c.src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", c.src, errs)
		}
		if _, err := x.Eval(in); err == nil || err.Error() != c.want {
			t.Errorf("%s: Eval fails with %v; want %q", c.src, err, c.want)
		}
		prog, err := x.JQ()
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		q, err := gojq.Parse(prog)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		v, _ := q.Run(doc).Next()
		if err, ok := v.(error); !ok || err.Error() != "error: "+c.want {
			t.Errorf("%s: jq gives %v; want error: %s", c.src, v, c.want)
		}
	}
}

// TestJQEvaluatesAsEval: over an output whose fields a schema would leave
// untyped (a null, a number in a string, a boolean, a list), every
// expression's jq program gives what Eval gives, the same answer or the
// same error: HCL's conversions (a string to a number or a bool, a number
// or a bool to a string), a null an operator or a function refuses, &&
// and ||'s short-circuits, and a function given a null it cannot type,
// which Eval calls null.
func TestJQEvaluatesAsEval(t *testing.T) {
	t.Parallel()
	in := Input{Steps: map[string]Step{
		"a": {Outcome: "succeeded", Output: json.RawMessage(`{"n":3,"s":"x","ns":"5","bs":"true","b":true,"l":[1,2],"ln":[1,null],"e":[],"o":{"k":null},"z":null,"f":1.5,"u":"TRUE","one":"1","inf":"-Inf","sp":" 5"}`)},
		"b": {Outcome: "skipped"},
	}}
	srcs := []string{
		`steps.a.output.z == 1`, `steps.a.output.z == null`, `steps.a.output.n == "3"`, `steps.a.output.l == [1, 2]`,
		`steps.a.output.ln == [1, null]`, `steps.a.output.z != 1`, `steps.a.output.z != null`,
		`steps.a.output.z < 1`, `1 > steps.a.output.z`, `steps.a.output.s < 1`, `steps.a.output.ns < 6`, `steps.a.output.b < 1`,
		`steps.a.output.l < 1`, `steps.a.output.o >= 1`, `steps.a.output.s < steps.a.output.b`, `steps.a.output.inf < -1e300`,
		`steps.a.output.sp < 6`, `steps.a.output.f <= 1.5`, `steps.b.output.x < steps.a.output.s`,
		`steps.a.output.z && true`, `true && steps.a.output.z`, `steps.a.output.z || true`, `steps.a.output.z || false`,
		`false || steps.a.output.z`, `steps.a.output.bs && true`, `steps.a.output.one && true`, `steps.a.output.s && true`,
		`steps.a.output.u && true`, `steps.a.output.n || true`, `true || steps.a.output.z`, `false && steps.a.output.z`,
		`steps.b.output.x == 1 && false`, `false && steps.b.output.x == 1`, `steps.b.output.x == 1 && true`,
		`steps.b.output.x == 1 || true`, `steps.b.output.x == 1 || false`, `steps.b.output.x == 1 || steps.b.output.y == 2`,
		`steps.b.output.x || steps.a.output.s`,
		`!steps.a.output.z`, `!steps.a.output.s`, `!steps.a.output.bs`, `!steps.b.output.x`,
		`-steps.a.output.s == 1`, `-steps.a.output.ns == -5`, `-steps.a.output.z == 1`, `-steps.a.output.b == 1`,
		`contains(steps.a.output.z, 1)`, `contains(steps.a.output.s, 1)`, `contains(steps.a.output.o, 1)`,
		`contains(steps.a.output.l, steps.a.output.z)`, `contains(steps.a.output.e, steps.a.output.z)`, `contains(steps.a.output.l, "1")`,
		`contains(steps.a.output.ln, 2)`, `contains(steps.a.output.ln, 1)`, `contains(steps.b.output.x, steps.b.output.y)`,
		`contains(steps.a.output.l, steps.a.output.z) || true`, `contains(steps.a.output.l, steps.a.output.z) && true`,
		`contains(steps.a.output.l, steps.a.output.z) && false`, `contains(steps.a.output.l, steps.a.output.z) == "x"`,
		`contains(steps.a.output.l, steps.a.output.z) == null`, `!contains(steps.a.output.l, steps.a.output.z)`,
		`startswith(steps.a.output.z, "x")`, `startswith(steps.a.output.n, "3")`, `startswith(steps.a.output.l, "3")`,
		`startswith("x", steps.a.output.z)`, `endswith(steps.a.output.b, "ue")`, `startswith(steps.a.output.l, steps.a.output.o)`,
		`startswith(steps.a.output.f, "1.5")`, `endswith(steps.b.output.x, steps.a.output.l)`,
		`length(steps.a.output.z) == 1`, `length(steps.a.output.n) == 1`, `length(steps.a.output.b) == 1`, `length(steps.a.output.o) == 1`,
		`steps.a.output.f == 1.5`, `steps.a.output.n >= 3`, `"a" == "a" && steps.a.output.n > 2.5`,
	}
	// u is unknown: contains given a null it cannot type. What is made of
	// it is unknown too, of a type (never null) or of none, as in HCL.
	u := `contains(steps.a.output.l, steps.a.output.z)`
	srcs = append(srcs,
		u+` == null`, `(!`+u+`) == null`, `(!`+u+`) == "x"`, `(!`+u+`) == true`, `(`+u+` < 1) == null`,
		`(`+u+` && true) == null`, `contains(`+u+`, 1) == 1`, `contains(`+u+`, 1) == null`,
		`length(`+u+`) == "x"`, `length(!`+u+`) == null`, `length(!`+u+`) == "x"`, `length(!`+u+`) == 1`,
		`startswith(`+u+`, "x") == null`, `startswith(`+u+`, "x") == 1`, `(-`+u+`) == null`, `(-(!`+u+`)) == 1`,
		`contains(steps.a.output.l, !`+u+`) == 1`, `contains(!`+u+`, 1) == 1`, `(`+u+` == 1) == null`,
		`(`+u+` || false) == null`, `contains([`+u+`], 1)`, `[`+u+`] == [true]`, `startswith(!`+u+`, "t") == 1`,
		`!`+u+` && steps.a.output.s`, `(`+u+` < steps.a.output.l) || true`,
	)
	answersAsEval(t, in, srcs)
}

// answersAsEval holds the jq program of each expression of srcs, run by
// gojq and by the machine's jq, to what Eval answers over in.
func answersAsEval(t *testing.T, in Input, srcs []string) {
	t.Helper()
	checkWithRealJQ(t, in, srcs)
	doc := inputDoc(t, in)
	for _, src := range srcs {
		x := parsed(t, src)
		if got, want := runJQ(t, x, doc), evalAnswer(x, in); got != want {
			t.Errorf("%s: jq gives %v; Eval %v", src, got, want)
		}
	}
}

// parsed is src, parsed.
func parsed(t *testing.T, src string) *Expr {
	t.Helper()
	x, errs := Parse(src)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", src, errs)
	}
	return x
}

// evalAnswer is what Eval answers over in: true, false, or "error: " and
// why, as runJQ gives jq's.
func evalAnswer(x *Expr, in Input) any {
	v, err := x.Eval(in)
	if err != nil {
		return "error: " + err.Error()
	}
	return v
}

// inputDoc is in as the document jq reads.
func inputDoc(t *testing.T, in Input) any {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// runJQ runs x's jq program over doc: its answer, or "error: " and why.
// JQDefs are parsed once (jqDefs) and the body on its own, as JQ joins
// them.
func runJQ(t *testing.T, x *Expr, doc any) any {
	t.Helper()
	body, err := x.JQBody()
	if err != nil {
		t.Fatalf("%s: %v", x.Text(), err)
	}
	q, err := gojq.Parse(body)
	if err != nil {
		t.Fatalf("%s: %v", x.Text(), err)
	}
	q.FuncDefs = append(jqDefs(t), q.FuncDefs...)
	v, ok := q.Run(doc).Next()
	if !ok {
		t.Fatalf("%s: jq gave nothing", x.Text())
	}
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return v
}

// jqDefs are JQDefs, parsed.
func jqDefs(t *testing.T) []*gojq.FuncDef {
	q, err := parsedDefs()
	if err != nil {
		t.Fatal(err)
	}
	return q.FuncDefs
}

var parsedDefs = sync.OnceValues(func() (*gojq.Query, error) { return gojq.Parse(JQDefs + ".") })

// TestJQEvaluatesAsEvalGenerated composes expressions at random from
// untyped fields, literals, a skipped step's output, every operator and
// every function, and holds each one's jq program to what Eval gives. A
// list literal is made of fields and literals only: one holding an
// unknown (contains given a null) is known to HCL with an unknown item,
// which jq holds as unknown whole.
func TestJQEvaluatesAsEvalGenerated(t *testing.T) {
	t.Parallel()
	in := Input{Steps: map[string]Step{
		"a": {Outcome: "succeeded", Output: json.RawMessage(`{"n":3,"s":"x","ns":"5","bs":"false","b":true,"l":[1,"x"],"ln":[null],"o":{"k":null},"z":null,"f":-1.5,"t":"True","e":""}`)},
		"b": {Outcome: "skipped"},
	}}
	atoms := []string{
		`steps.a.output.n`, `steps.a.output.s`, `steps.a.output.ns`, `steps.a.output.bs`, `steps.a.output.b`,
		`steps.a.output.l`, `steps.a.output.ln`, `steps.a.output.o`, `steps.a.output.z`, `steps.a.output.f`,
		`steps.a.output.t`, `steps.a.output.e`, `steps.a.output.nope`, `steps.b.output.x`, `steps.a.outcome`,
		`1`, `-2.5`, `"5"`, `"x"`, `"true"`, `true`, `false`, `null`, `[1, "x"]`, `[]`, `"1"`,
	}
	r := rand.New(rand.NewPCG(29, 2026))
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || r.IntN(4) == 0 {
			if r.IntN(8) == 0 {
				return "[" + atoms[r.IntN(len(atoms))] + ", " + atoms[r.IntN(len(atoms))] + "]"
			}
			return atoms[r.IntN(len(atoms))]
		}
		switch r.IntN(7) {
		case 0:
			return "!" + gen(depth-1)
		case 1:
			return "-" + gen(depth-1)
		case 2:
			return "contains(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 3:
			return "length(" + gen(depth-1) + ")"
		case 4:
			return []string{"startswith", "endswith"}[r.IntN(2)] + "(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		}
		op := []string{"==", "!=", "<", "<=", ">", ">=", "&&", "||"}[r.IntN(8)]
		return "(" + gen(depth-1) + " " + op + " " + gen(depth-1) + ")"
	}
	srcs := make([]string, 1000)
	for i := range srcs {
		srcs[i] = gen(3)
	}
	answersAsEval(t, in, srcs)
}

// checkWithRealJQ evaluates the expressions srcs over in with the jq on
// this machine, the one a compiled script runs (jq 1.6 or later), in one
// program: each gives what Eval gives. Without jq it says so and checks
// nothing: CI installs it.
func checkWithRealJQ(t *testing.T, in Input, srcs []string) {
	t.Helper()
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Log("no jq on this machine: the real jq's answers are not checked")
		return
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// answers runs srcs in one program; each gives an answer, as a value
	// (what known and JQBody's end say): a jq program can give one error.
	answers := func(srcs []string) ([]byte, error) {
		var prog strings.Builder
		prog.WriteString(JQDefs + "[")
		for i, src := range srcs {
			rec, err := jqRecord(parsed(t, src).e)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if i > 0 {
				prog.WriteString(",\n")
			}
			prog.WriteString("(" + rec + ` | if has("e") then "error: " + .e elif has("u") or .v == null then "error: it is null" ` +
				`elif (.v | type) == "boolean" then .v else "error: it is \(.v | kind), not a boolean" end)`)
		}
		prog.WriteString("]")
		file := filepath.Join(t.TempDir(), "answers.jq")
		if err := os.WriteFile(file, []byte(prog.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(jq, "-c", "-f", file)
		cmd.Stdin = bytes.NewReader(b)
		return cmd.Output()
	}
	// jq holds a program's main function to 64 KiB of bytecode: fifty
	// expressions at a time.
	var got []any
	for start := 0; start < len(srcs); start += 50 {
		chunk := srcs[start:min(start+50, len(srcs))]
		out, err := answers(chunk)
		if err != nil {
			for _, src := range chunk {
				if _, err := answers([]string{src}); err != nil {
					t.Errorf("%s: %s fails: %v: %s", src, jq, err, stderrOf(err))
				}
			}
			t.Fatalf("jq: %v: %s", err, stderrOf(err))
		}
		var answers []any
		if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(chunk) {
			t.Fatalf("jq gave %s (%v); want %d answers", out, err, len(chunk))
		}
		got = append(got, answers...)
	}
	for i, src := range srcs {
		if want := evalAnswer(parsed(t, src), in); got[i] != want {
			t.Errorf("%s: %s gives %v; Eval %v", src, jq, got[i], want)
		}
	}
}

// stderrOf is what a command that failed wrote to stderr.
func stderrOf(err error) []byte {
	if e, ok := err.(*exec.ExitError); ok {
		return e.Stderr
	}
	return nil
}
