package ir

import (
	"encoding/json"
	"testing"
)

func TestUsagePlusMinus(t *testing.T) {
	a := Usage{Turns: Count(2), InputTokens: Count(100), CostUSD: Dollars(0.1004776)}
	b := Usage{Turns: Count(1), OutputTokens: Count(10), CostUSD: Dollars(0.0501228)}
	for _, tc := range []struct {
		name string
		got  Usage
		want string
	}{
		{"plus", a.Plus(b), `{"turns":3,"input_tokens":100,"output_tokens":10,"cost_usd":0.1506004}`},
		{"plus nothing", a.Plus(Usage{}), `{"turns":2,"input_tokens":100,"cost_usd":0.1004776}`},
		{"nothing plus nothing", Usage{}.Plus(Usage{}), `{}`},
		{"minus", a.Plus(b).Minus(a), `{"turns":1,"input_tokens":0,"output_tokens":10,"cost_usd":0.0501228}`},
		{"minus what it lacks", a.Minus(b), `{"turns":1,"input_tokens":100,"cost_usd":0.0503548}`},
		{"never below zero", b.Minus(a), `{"turns":0,"output_tokens":10,"cost_usd":0}`},
	} {
		got, err := json.Marshal(tc.got)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
	sum := a.Plus(b)
	*sum.Turns = 99
	if *a.Turns != 2 || *b.Turns != 1 {
		t.Errorf("Plus shares memory with its operands")
	}
	if !(Usage{}).IsZero() || a.IsZero() || (Usage{CostUSD: Dollars(0)}).IsZero() {
		t.Errorf("IsZero is wrong")
	}
}

func TestFormatCostSpent(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatCost(0.0712), "$0.0712"},
		{FormatCost(0.1506004), "$0.1506"},
		{FormatCost(12), "$12.0000"},
		{FormatSpent(4.0213, 4), "$4.02"},
		{FormatSpent(4, 4), "$4.00"},
		{FormatSpent(0.0013, 0.001), "$0.0013"},
		{FormatSpent(0.0149, 0.01), "$0.015"},
		{FormatSpent(0.0101, 0.01), "$0.0101"},
		{FormatSpent(4.0000000001, 4), "$4.00"},
		{FormatSpent(0.0016, 0.001), "$0.002"},
		{FormatSpent(0.10149, 0.1015), "$0.1015"},
		{FormatSpent(1.004, 1.005), "$1.004"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s; want %s", tc.got, tc.want)
		}
	}
}
