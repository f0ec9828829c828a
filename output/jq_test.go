package output

import (
	"os/exec"
	"strings"
	"testing"
)

// TestJQAgreesWithValidate runs the jq program of each schema on outputs
// and holds its verdict, word for word, to Validate's.
func TestJQAgreesWithValidate(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("no jq")
	}
	schemas := []string{
		triage,
		`{"type":["string","null"],"const":null}`,
		`{"type":"array","minItems":1,"items":{"type":"object","required":["a","b/c"],"properties":{"a":{"type":"number","minimum":0.5},"b/c":{"const":{"x":[1,2]}}}}}`,
		`{"enum":[1,"1",{"a":[1,2]},null,true]}`,
		`{"type":"object","additionalProperties":false}`,
		`{"type":"integer","maximum":1e3}`,
		`{}`,
	}
	outs := []string{`null`, `true`, `1`, `1.0`, `1.5`, `0.25`, `1001`, `"1"`, `"x"`, `[]`, `[{"a":1}]`, `[{"a":0.1}]`, `[{}]`,
		`[{"a":1,"b/c":{"x":[1,2]}}]`, `[{"a":1,"b/c":{"x":[2,1]}}]`, `{"a":[1,2]}`, `{"a":[2,1]}`,
		`{"severity":"low","title":"ok"}`, `{"severity":"low"}`, `{"severity":"low","title":"ok","x~y":1,"a/b":2}`,
		`{"severity":"mid","title":"okokokok"}`, `{"severity":"low","title":"éé"}`, `{"severity":"low","title":"ok","score":3.5}`,
		`{"severity":"low","title":"ok","files":[1]}`, `{"severity":"low","title":"ok","files":["a","b","c"]}`}
	for _, s := range schemas {
		prog, err := JQ(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			want := ""
			if v := Validate(s, []byte(o)); v != nil {
				want = v.Error()
			}
			cmd := exec.Command(jq, "-r", prog)
			cmd.Stdin = strings.NewReader(o)
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("jq on schema %s, output %s: %v\n%s", s, o, err, prog)
			}
			if g := strings.TrimSuffix(string(got), "\n"); g != want {
				t.Errorf("schema %s, output %s: jq says %q, Validate %q", s, o, g, want)
			}
		}
	}
}
