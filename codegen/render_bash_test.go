package codegen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// TestBashUSDJQ holds the jq a compiled script words amounts with to what
// cairn run writes: plain to strconv.FormatFloat(x, 'f', -1, 64) (claude's
// --max-budget-usd), usd to ir.FormatUSD, spent_cause to ir.FormatSpent and
// FormatUSD, over amounts written by hand and sums of random costs.
func TestBashUSDJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not on PATH")
	}
	type pair struct{ spent, limit float64 }
	pairs := []pair{
		{4.02, 4}, {4.5, 4}, {3, 3}, {1.5, 1}, {0.0013, 0.001}, {0.125, 0.12}, {4.015, 4.01}, {0.1 + 0.2, 0.3},
		{1e-7, 1e-8}, {0.0000012345, 0.000001}, {12345.678, 12345.67}, {100, 99.99}, {0.3, 0.30000000000000004},
		{4.0000000001, 4}, {2.999999999999, 2.9999999999}, {1e17, 1e16}, {7.5e-12, 7e-12}, {0.0149, 0.01}, {0.0101, 0.01},
	}
	r := rand.New(rand.NewPCG(15, 4))
	for range 200 {
		// Costs as CLIs report them, summed as the purses sum them.
		spent := 0.0
		for range 1 + r.IntN(5) {
			cost := math.Round(r.Float64()*2*1e7) / 1e7
			spent = ir.Usage{CostUSD: ir.Dollars(spent)}.Plus(ir.Usage{CostUSD: ir.Dollars(cost)}).Cost()
		}
		limit := math.Round(spent*float64(r.IntN(3)+1)*100) / 100 / float64(r.IntN(3)+1)
		pairs = append(pairs, pair{spent, max(limit, 0.01)})
	}
	var in, want strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&in, `{"what":"budget","spent":%s,"limit":%s}`+"\n", strconv.FormatFloat(p.spent, 'g', -1, 64), strconv.FormatFloat(p.limit, 'g', -1, 64))
		fmt.Fprintf(&want, "%s\n%s\n%s\n", strconv.FormatFloat(p.spent, 'f', -1, 64), ir.FormatUSD(p.limit),
			fmt.Sprintf("budget spent: %s of %s", ir.FormatSpent(p.spent, p.limit), ir.FormatUSD(p.limit)))
	}
	cmd := exec.Command("jq", "-r", BashUSDJQ+"\n(.spent | plain), (.limit | usd), spent_cause")
	cmd.Stdin = strings.NewReader(in.String())
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("jq printed %d lines; want %d:\n%s", len(gotLines), len(wantLines), got)
	}
	for i := range wantLines {
		if gotLines[i] != wantLines[i] {
			p := pairs[i/3]
			t.Errorf("spent %v, limit %v: jq %q; want %q", p.spent, p.limit, gotLines[i], wantLines[i])
		}
	}
}

// TestBashUSDJQTightest: of the budgets over a session, the tightest is
// the one with the least left, the first (the step's) on a tie.
func TestBashUSDJQTightest(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not on PATH")
	}
	for _, tc := range []struct{ in, want string }{
		{`[]`, `null`},
		{`[{"what":"step budget","limit":1,"spent":0.5},{"what":"budget","limit":4,"spent":3.5}]`, `"step budget"`},
		{`[{"what":"step budget","limit":1,"spent":0.25},{"what":"budget","limit":4,"spent":3.5}]`, `"budget"`},
		{`[{"what":"step budget","limit":1,"spent":0.5},{"what":"budget","limit":4,"spent":3.6}]`, `"budget"`},
	} {
		got, err := exec.Command("jq", "-n", "-c", "--argjson", "p", tc.in, BashUSDJQ+"\n$p | tightest | .what").Output()
		if err != nil {
			t.Fatalf("jq: %v", err)
		}
		if strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("%s: tightest %s; want %s", tc.in, got, tc.want)
		}
	}
}

// TestDropComments: a rendered script loses the lines that are only a
// comment, but for its header and shellcheck's directives; a "#" in data
// or after a command stays.
func TestDropComments(t *testing.T) {
	src := "#!/usr/bin/env bash\n# The header.\n# shellcheck disable=SC2016\nset -eu\n\n" +
		"# f does things.\nf() {\n  # a comment\n  echo hi # after a command\n  x='a\n# data, not a comment\nb'\n}\n" +
		"  # shellcheck disable=SC2034\ny=1\ncat <<'EOF'\n# a here-document line\nEOF\n"
	want := "#!/usr/bin/env bash\n# The header.\n# shellcheck disable=SC2016\nset -eu\n\n" +
		"f() {\n  echo hi # after a command\n  x='a\n# data, not a comment\nb'\n}\n" +
		"  # shellcheck disable=SC2034\ny=1\ncat <<'EOF'\n# a here-document line\nEOF\n"
	got, err := dropComments([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("dropComments:\n%s\nwant:\n%s", got, want)
	}
	if _, err := dropComments([]byte("f() {\n")); err == nil {
		t.Error("dropComments of a script that does not parse: no error")
	}
}
