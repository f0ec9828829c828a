package ir

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"45m", 45 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"30d", 30 * 24 * time.Hour, true},
		{"12w", 12 * 7 * 24 * time.Hour, true},
		{"1w2d3h4m5s", 7*24*time.Hour + 2*24*time.Hour + 3*time.Hour + 4*time.Minute + 5*time.Second, true},
		{"", 0, false},
		{"10", 0, false},
		{"m", 0, false},
		{"30m1h", 0, false},
		{"1h1h", 0, false},
		{"1.5h", 0, false},
		{"10x", 0, false},
		{"-1h", 0, false},
		{"never", 0, false},
		{"9999999999s", 0, false},
	} {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestPosAt(t *testing.T) {
	// value "ab\ncd" copied verbatim from line 3 column 5.
	spans := []Span{{Offset: 0, Start: Pos{Line: 3, Column: 5, Offset: 20}}}
	for _, tc := range []struct {
		off  int
		want Pos
	}{
		{0, Pos{3, 5, 20}},
		{1, Pos{3, 6, 21}},
		{3, Pos{4, 1, 23}},
		{4, Pos{4, 2, 24}},
	} {
		if got := PosAt("ab\ncd", spans, tc.off); got != tc.want {
			t.Errorf("PosAt(%d) = %+v; want %+v", tc.off, got, tc.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{350*time.Millisecond + 400*time.Microsecond, "350ms"},
		{1234 * time.Millisecond, "1.2s"},
		{45*time.Second + 400*time.Millisecond, "45s"},
		{3*time.Minute + 5*time.Second + 300*time.Millisecond, "3m5s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1h2m3s"},
	} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
