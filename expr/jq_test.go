package expr

import (
	"encoding/json"
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
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
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
