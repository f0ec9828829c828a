package ir

import (
	"fmt"
	"math"
	"testing"
)

func TestCheckBudget(t *testing.T) {
	for _, tc := range []struct {
		b    Budget
		want string
	}{
		{Budget{USD: 4}, ""},
		{Budget{USD: 0.01}, ""},
		{Budget{USD: 0}, `invalid budget_usd 0; a budget must be more than 0`},
		{Budget{USD: -1}, `invalid budget_usd -1; a budget must be more than 0`},
		{Budget{USD: -2.5}, `invalid budget_usd -2.5; a budget must be more than 0`},
		{Budget{USD: math.Inf(1)}, `invalid budget_usd +Inf; write a number of US dollars, such as 4.50`},
		{Budget{USD: math.NaN()}, `invalid budget_usd NaN; write a number of US dollars, such as 4.50`},
		{Budget{Quoted: true, Text: "abc"}, `invalid budget_usd "abc"; write a number of US dollars, without quotes, such as 4.50`},
		{Budget{Quoted: true, Text: "4"}, `invalid budget_usd "4"; write a number of US dollars, without quotes, such as 4.50`},
	} {
		got := fmt.Sprint(CheckBudget("budget_usd", tc.b))
		if tc.want == "" && got != "<nil>" || tc.want != "" && got != tc.want {
			t.Errorf("CheckBudget(%+v) = %s; want %q", tc.b, got, tc.want)
		}
	}
}

func TestBudgetOf(t *testing.T) {
	for _, tc := range []struct {
		f    Field[Budget]
		usd  float64
		isOK bool
	}{
		{Field[Budget]{Value: Budget{USD: 2.5}, Set: true}, 2.5, true},
		{Field[Budget]{Value: Budget{USD: 2.5}}, 0, false},
		{Field[Budget]{Value: Budget{USD: 2.5}, Set: true, Bad: true}, 0, false},
		{Field[Budget]{Value: Budget{USD: -1}, Set: true}, 0, false},
		{Field[Budget]{Value: Budget{Quoted: true, Text: "2.5"}, Set: true}, 0, false},
	} {
		if usd, ok := BudgetOf(tc.f); usd != tc.usd || ok != tc.isOK {
			t.Errorf("BudgetOf(%+v) = %v, %v; want %v, %v", tc.f, usd, ok, tc.usd, tc.isOK)
		}
	}
}

func TestParseUSD(t *testing.T) {
	for _, tc := range []struct {
		in   string
		usd  float64
		fail string
	}{
		{"4", 4, ""},
		{"2.50", 2.5, ""},
		{" 0.125 ", 0.125, ""},
		{"1e2", 100, ""},
		{"0", 0, `want a number of US dollars above 0, such as 4.50`},
		{"-1", 0, `want a number of US dollars above 0, such as 4.50`},
		{"abc", 0, `want a number of US dollars above 0, such as 4.50`},
		{"$4", 0, `want a number of US dollars above 0, such as 4.50`},
		{"inf", 0, `want a number of US dollars above 0, such as 4.50`},
		{"NaN", 0, `want a number of US dollars above 0, such as 4.50`},
		{"", 0, `want a number of US dollars above 0, such as 4.50`},
	} {
		usd, err := ParseUSD(tc.in)
		switch {
		case tc.fail == "" && (err != nil || usd != tc.usd):
			t.Errorf("ParseUSD(%q) = %v, %v; want %v", tc.in, usd, err, tc.usd)
		case tc.fail != "" && fmt.Sprint(err) != tc.fail:
			t.Errorf("ParseUSD(%q) error = %v; want %q", tc.in, err, tc.fail)
		}
	}
}

func TestFormatUSD(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{4, "$4.00"},
		{2.5, "$2.50"},
		{0.125, "$0.125"},
		{0.0123, "$0.0123"},
		{1234.56, "$1234.56"},
		{-1, "-$1.00"},
	} {
		if got := FormatUSD(tc.v); got != tc.want {
			t.Errorf("FormatUSD(%v) = %q; want %q", tc.v, got, tc.want)
		}
	}
}
