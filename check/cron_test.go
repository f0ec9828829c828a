package check

import "testing"

// TestCheckCron takes the schedules GitHub Actions documents and refuses
// what it cannot read, saying which field is wrong.
func TestCheckCron(t *testing.T) {
	for _, tc := range []struct{ cron, err string }{
		{"*/15 * * * *", ""},
		{"30 5,17 * * *", ""},
		{"0 4 * * 1-5", ""},
		{"0 0 1 JAN,jul MON-Fri", ""},
		{"0-59/5 0-23/2 1-31 1-12 0-6", ""},
		{"  5   4  *  *  sun  ", ""},
		{"0 0 31 12 6", ""},
		{"", "want 5 fields (minute, hour, day of the month, month, day of the week), have 0"},
		{"* * * * * *", "want 5 fields (minute, hour, day of the month, month, day of the week), have 6"},
		{"@hourly", `GitHub Actions takes no macro such as "@hourly"; write five fields`},
		{"60 * * * *", `minute "60": 60 is out of range 0-59`},
		{"* 24 * * *", `hour "24": 24 is out of range 0-23`},
		{"* * 0 * *", `day of the month "0": 0 is out of range 1-31`},
		{"* * * 13 *", `month "13": 13 is out of range 1-12`},
		{"* * * * 7", `day of the week "7": 7 is out of range 0-6`},
		{"* * * * sunday", `day of the week "sunday": "sunday" is neither a number from 0 to 6 nor a name (sun, mon, tue, wed, thu, fri, sat)`},
		{"x * * * *", `minute "x": "x" is not a number from 0 to 59`},
		{"+5 * * * *", `minute "+5": "+5" is not a number from 0 to 59`},
		{"1,,2 * * * *", `minute "1,,2": an empty item in a list`},
		{"*/0 * * * *", `minute "*/0": step "0" is not a number from 1 to 60`},
		{"*/x * * * *", `minute "*/x": step "x" is not a number from 1 to 60`},
		{"5/15 * * * *", `minute "5/15": a step needs "*" or a range before it, as in */15 or 5-59/15`},
		{"* 9-5 * * *", `hour "9-5": range 9-5 runs backwards`},
		{"* 1-2-3 * * *", `hour "1-2-3": "2-3" is not a number from 0 to 23`},
		{"? * * * *", `minute "?": "?" is not a number from 0 to 59`},
	} {
		err := checkCron(tc.cron)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("checkCron(%q) = %q; want %q", tc.cron, got, tc.err)
		}
	}
}
