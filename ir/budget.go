package ir

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Budget is a budget_usd as written: the most a run, or one session step,
// may spend, in US dollars, as the harnesses' CLIs report cost. A number
// is USD; a string ("4.50", "$4") is no budget, Quoted with its Text, and
// CheckBudget refuses it as it refuses an amount not above zero.
type Budget struct {
	USD    float64
	Quoted bool
	Text   string
}

// CheckBudget returns why b, the value of key ("budget_usd"), is no
// budget, worded as a refusal of rule invalid-value; nil when it is one.
func CheckBudget(key string, b Budget) error {
	switch {
	case b.Quoted:
		return fmt.Errorf("invalid %s %q; write a number of US dollars, without quotes, such as 4.50", key, b.Text)
	case math.IsNaN(b.USD) || math.IsInf(b.USD, 0):
		return fmt.Errorf("invalid %s %v; write a number of US dollars, such as 4.50", key, b.USD)
	case b.USD <= 0:
		return fmt.Errorf("invalid %s %v; a budget must be more than 0", key, b.USD)
	}
	return nil
}

// BudgetOf returns the amount of f, and false when f holds no budget: not
// set, refused by its front-end, or refused by CheckBudget.
func BudgetOf(f Field[Budget]) (float64, bool) {
	if !f.Set || f.Bad || CheckBudget("", f.Value) != nil {
		return 0, false
	}
	return f.Value.USD, true
}

// ParseUSD reads an amount of US dollars as a command line gives it
// ("4", "2.50"): a finite number above zero.
func ParseUSD(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, errors.New("want a number of US dollars above 0, such as 4.50")
	}
	return v, nil
}

// FormatUSD words an amount of US dollars for a person: "$4.00", "$0.125",
// with cents always and every further digit the amount has.
func FormatUSD(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	if strings.HasPrefix(s, "-") {
		return "-$" + s[1:]
	}
	return "$" + s
}
