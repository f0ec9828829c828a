package tomldoc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/pelletier/go-toml/v2/unstable"
)

// stringDecoder decodes the raw text of a TOML string that go-toml's parser
// accepted, recording where each stretch of the value comes from.
type stringDecoder struct {
	source.StringDecoder
}

// decodeString decodes raw, a TOML string as written with its quotes, into
// its value and the spans that map the value back to raw: one at the start
// of the content, one at each escape sequence, one after each escape and after
// each line-ending backslash's trimmed whitespace.
func decodeString(raw []byte) (string, []source.SpanAt) {
	if start, end, ok := verbatim(raw); ok {
		return string(raw[start:end]), []source.SpanAt{{Value: 0, File: start}}
	}
	// What is left is a basic string with a backslash.
	d := &stringDecoder{source.StringDecoder{Raw: raw, Out: make([]byte, 0, len(raw))}}
	if len(raw) >= 6 && string(raw[:3]) == `"""` {
		d.basic(trimFirstNewline(raw, 3), len(raw)-3, true)
	} else {
		d.basic(1, len(raw)-1, false)
	}
	return string(d.Out), d.Spans
}

// verbatim returns where the content of raw starts and ends when it is
// copied from the file as it is: a literal string, or a basic string without
// a backslash. Anything else but a basic string with a backslash is taken
// whole.
func verbatim(raw []byte) (start, end int, ok bool) {
	switch {
	case len(raw) >= 6 && (string(raw[:3]) == `"""` || string(raw[:3]) == "'''"):
		if raw[0] == '"' && bytes.IndexByte(raw, '\\') >= 0 {
			return 0, 0, false
		}
		return trimFirstNewline(raw, 3), len(raw) - 3, true
	case len(raw) >= 2 && (raw[0] == '"' || raw[0] == '\''):
		if raw[0] == '"' && bytes.IndexByte(raw, '\\') >= 0 {
			return 0, 0, false
		}
		return 1, len(raw) - 1, true
	}
	return 0, len(raw), true
}

// trimFirstNewline returns where the content of a multi-line string opened at
// raw[:i] starts: a newline right after the opening quotes is not part of it.
func trimFirstNewline(raw []byte, i int) int {
	switch {
	case i < len(raw) && raw[i] == '\n':
		return i + 1
	case i+1 < len(raw) && raw[i] == '\r' && raw[i+1] == '\n':
		return i + 2
	}
	return i
}

// basic decodes the content raw[i:end] of a basic string.
func (d *stringDecoder) basic(i, end int, multiline bool) {
	d.Mark(i)
	raw := d.Raw
	for i < end {
		c := raw[i]
		if c != '\\' {
			d.Out = append(d.Out, c)
			i++
			continue
		}
		if i+1 >= end {
			d.Out = append(d.Out, c)
			i++
			continue
		}
		if multiline && isTOMLSpace(raw[i+1]) {
			// A line-ending backslash trims the whitespace and newlines
			// that follow it.
			j := i + 1
			for j < end && isTOMLSpace(raw[j]) {
				j++
			}
			i = j
			d.Mark(i)
			continue
		}
		d.Mark(i)
		i = d.escape(i+1, end)
		d.Mark(i)
	}
}

func isTOMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// escape decodes the escape sequence whose letter is at raw[i] and returns
// the offset after it.
func (d *stringDecoder) escape(i, end int) int {
	c := d.Raw[i]
	switch c {
	case 'b':
		d.Out = append(d.Out, '\b')
	case 't':
		d.Out = append(d.Out, '\t')
	case 'n':
		d.Out = append(d.Out, '\n')
	case 'f':
		d.Out = append(d.Out, '\f')
	case 'r':
		d.Out = append(d.Out, '\r')
	case 'e':
		d.Out = append(d.Out, 0x1b)
	case 'x', 'u', 'U':
		n := 2
		switch c {
		case 'u':
			n = 4
		case 'U':
			n = 8
		}
		if i+1+n > end {
			d.Out = append(d.Out, d.Raw[i:end]...)
			return end
		}
		r, err := strconv.ParseUint(string(d.Raw[i+1:i+1+n]), 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			r = utf8.RuneError
		}
		d.Out = utf8.AppendRune(d.Out, rune(r))
		return i + 1 + n
	default:
		// '"', '\\', and anything the parser would have refused, a whole
		// character: a stretch starting inside one would count its columns
		// wrong.
		_, size := utf8.DecodeRune(d.Raw[i:])
		d.Out = append(d.Out, d.Raw[i:i+size]...)
		return i + size
	}
	return i + 1
}

// parseInteger reads a TOML integer go-toml's parser accepted; it fails when
// the integer does not fit 64 bits.
func parseInteger(s string) (int64, error) {
	clean := strings.ReplaceAll(s, "_", "")
	base := 10
	digits := clean
	if len(clean) > 2 && clean[0] == '0' {
		switch clean[1] {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 10 {
			digits = clean[2:]
		}
	}
	n, err := strconv.ParseInt(digits, base, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", s)
	}
	if err != nil {
		return 0, fmt.Errorf("invalid integer %s", s)
	}
	return n, nil
}

// parseFloat reads a TOML float go-toml's parser accepted; like go-toml's
// decoder, it fails when the float is too large or too small for 64 bits.
func parseFloat(s string) (float64, error) {
	clean := strings.ReplaceAll(s, "_", "")
	switch strings.TrimLeft(clean, "+-") {
	case "inf":
		if strings.HasPrefix(clean, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(clean, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("float %s is out of range", s)
	}
	if err != nil {
		return 0, fmt.Errorf("invalid float %s", s)
	}
	return f, nil
}

// checkDateTime checks a date or time go-toml's parser delimited but did not
// read: YYYY-MM-DD, HH:MM[:SS[.frac]], both joined by T, t or a space, and
// that followed by Z, z or an offset ±HH:MM.
func checkDateTime(kind unstable.Kind, s string) error {
	rest := s
	var err error
	if kind != unstable.LocalTime {
		if rest, err = checkDate(rest); err != nil {
			return fmt.Errorf("invalid date %s: %w", s, err)
		}
		if kind == unstable.LocalDate {
			if rest != "" {
				return fmt.Errorf("invalid date %s", s)
			}
			return nil
		}
		if rest == "" || !strings.ContainsRune("Tt ", rune(rest[0])) {
			return fmt.Errorf("invalid date-time %s: expected T or a space between date and time", s)
		}
		rest = rest[1:]
	}
	if rest, err = checkTime(rest); err != nil {
		return fmt.Errorf("invalid time %s: %w", s, err)
	}
	if kind != unstable.DateTime {
		if rest != "" {
			return fmt.Errorf("invalid time %s: unexpected %q", s, rest)
		}
		return nil
	}
	switch {
	case rest == "Z" || rest == "z":
		return nil
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		h, okH := digits(rest[1:3])
		m, okM := digits(rest[4:6])
		if okH && okM && h <= 23 && m <= 59 {
			return nil
		}
	}
	return fmt.Errorf("invalid date-time %s: invalid time zone %q", s, rest)
}

// digits reads a string of decimal digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, s != ""
}

// checkDate checks the YYYY-MM-DD at the start of s and returns the rest.
func checkDate(s string) (string, error) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return "", errors.New("expected YYYY-MM-DD")
	}
	y, okY := digits(s[0:4])
	m, okM := digits(s[5:7])
	d, okD := digits(s[8:10])
	if !okY || !okM || !okD {
		return "", errors.New("expected YYYY-MM-DD")
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		return "", errors.New("no such day")
	}
	return s[10:], nil
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// checkTime checks the HH:MM[:SS[.frac]] at the start of s and returns the
// rest.
func checkTime(s string) (string, error) {
	if len(s) < 5 || s[2] != ':' {
		return "", errors.New("expected HH:MM[:SS]")
	}
	h, okH := digits(s[0:2])
	m, okM := digits(s[3:5])
	if !okH || !okM || h > 23 || m > 59 {
		return "", errors.New("no such time")
	}
	s = s[5:]
	if s == "" || s[0] != ':' {
		return s, nil
	}
	if len(s) < 3 {
		return "", errors.New("expected two digits of seconds")
	}
	if sec, ok := digits(s[1:3]); !ok || sec > 59 {
		return "", errors.New("no such time")
	}
	s = s[3:]
	if s != "" && s[0] == '.' {
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 1 {
			return "", errors.New("expected digits after the decimal point")
		}
		s = s[i:]
	}
	return s, nil
}
