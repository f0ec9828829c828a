package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cronField is one of a cron schedule's five fields: its name, its range,
// and the names it takes for its values (months, days of the week).
type cronField struct {
	name     string
	min, max int
	names    []string
}

// cronFields are the fields of a schedule as GitHub Actions reads them
// (POSIX cron): minute, hour, day of the month, month, day of the week.
var cronFields = []cronField{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day of the month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{name: "day of the week", min: 0, max: 6, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

// checkCron reports why s is not a schedule GitHub Actions takes: five
// fields separated by blanks, each "*" or a comma-separated list of values
// and ranges (A-B), either of which may take a step (*/N, A-B/N); months
// and days of the week may be written as names (jan, mon). Nil when it is
// one.
func checkCron(s string) error {
	fields := strings.Fields(s)
	if len(fields) != len(cronFields) {
		if strings.HasPrefix(strings.TrimSpace(s), "@") {
			return fmt.Errorf("GitHub Actions takes no macro such as %q; write five fields", strings.TrimSpace(s))
		}
		return fmt.Errorf("want 5 fields (minute, hour, day of the month, month, day of the week), have %d", len(fields))
	}
	for i, f := range fields {
		if err := cronFields[i].check(f); err != nil {
			return fmt.Errorf("%s %q: %v", cronFields[i].name, f, err)
		}
	}
	return nil
}

// check reports why text is not a value of the field.
func (cf cronField) check(text string) error {
	for _, item := range strings.Split(text, ",") {
		if item == "" {
			return fmt.Errorf("an empty item in a list")
		}
		base, step, stepped := strings.Cut(item, "/")
		if stepped {
			n, err := strconv.Atoi(step)
			if err != nil || n < 1 || n > cf.max-cf.min+1 {
				return fmt.Errorf("step %q is not a number from 1 to %d", step, cf.max-cf.min+1)
			}
		}
		if base == "*" {
			continue
		}
		lo, hi, ranged := strings.Cut(base, "-")
		a, err := cf.value(lo)
		if err != nil {
			return err
		}
		if !ranged {
			if stepped {
				return fmt.Errorf("a step needs \"*\" or a range before it, as in */%s or %d-%d/%s", step, a, cf.max, step)
			}
			continue
		}
		b, err := cf.value(hi)
		if err != nil {
			return err
		}
		if a > b {
			return fmt.Errorf("range %s runs backwards", base)
		}
	}
	return nil
}

// value reads one value of the field: a number in its range, or a name.
func (cf cronField) value(s string) (int, error) {
	if i := slices.Index(cf.names, strings.ToLower(s)); i >= 0 {
		return cf.min + i, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || strings.HasPrefix(s, "+") {
		if len(cf.names) > 0 {
			return 0, fmt.Errorf("%q is neither a number from %d to %d nor a name (%s)", s, cf.min, cf.max, strings.Join(cf.names, ", "))
		}
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, cf.min, cf.max)
	}
	if n < cf.min || n > cf.max {
		return 0, fmt.Errorf("%d is out of range %d-%d", n, cf.min, cf.max)
	}
	return n, nil
}
