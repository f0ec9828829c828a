package ir

import (
	"fmt"
	"strings"
	"time"
)

// Never is the expiry that pins a run forever.
const Never = "never"

// durationUnits are the units of cairn's one duration grammar, in the order
// they may appear.
var durationUnits = []struct {
	unit string
	d    time.Duration
}{
	{"w", 7 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
}

// ParseDuration reads cairn's duration grammar: integers with units w, d, h,
// m, s, largest first, each at most once ("90s", "45m", "1h30m", "30d",
// "12w"). "never" is not a duration; callers that accept it check first.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var total time.Duration
	next := 0 // index into durationUnits of the smallest unit still allowed
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("duration %q: expected a number at %q", s, s[i:])
		}
		if j-i > 9 {
			return 0, fmt.Errorf("duration %q: number too large", s)
		}
		n := 0
		for _, c := range s[i:j] {
			n = n*10 + int(c-'0')
		}
		if j == len(s) {
			return 0, fmt.Errorf("duration %q: %d needs a unit (w, d, h, m or s)", s, n)
		}
		found := false
		for k := next; k < len(durationUnits); k++ {
			if string(s[j]) == durationUnits[k].unit {
				total += time.Duration(n) * durationUnits[k].d
				next = k + 1
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("duration %q: unexpected unit %q (use w, d, h, m, s, largest first)", s, s[j:j+1])
		}
		i = j + 1
	}
	return total, nil
}

// DurationHint is what the refusal of a duration written as a number adds:
// the string it was likely meant to be, the number with unit, when number
// is a whole number ("30" and "s" → "30s"), else an example in that unit.
func DurationHint(number, unit string) string {
	if d := DurationOf(number, unit); d != "" {
		return fmt.Sprintf("; write a duration as a string with its unit: %q", d)
	}
	return fmt.Sprintf("; write a duration as a string with its unit, such as %q", "30"+unit)
}

// DurationOf is the duration a whole number was likely meant to be, the
// number with unit ("30" and "s" give "30s"), or "" when number is not a
// whole number of at most nine digits: what the refusal of a duration
// written as a number offers as its fix.
func DurationOf(number, unit string) string {
	if number != "" && len(number) <= 9 && strings.Trim(number, "0123456789") == "" {
		return number + unit
	}
	return ""
}

// FormatDuration words d as precisely as a reader of a log or a status
// line cares: "0s", "350ms", "1.2s", "45s", "3m5s", "1h2m3s".
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
