// Package glob matches the doublestar globs of a worktree's copy against
// slash-separated paths, and turns each into the POSIX extended regular
// expression a compiled bash script matches with, so that `cairn run` and
// its compiled scripts copy the same files.
package glob

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Check says why pattern is no glob of a worktree's copy: not doublestar's
// syntax, empty, absolute, or reaching outside the repository with a ".."
// segment. Nil when it is one.
func Check(pattern string) error {
	switch {
	case pattern == "":
		return errors.New("an empty glob matches nothing")
	case strings.HasPrefix(pattern, "/"):
		return errors.New("it is absolute; write it from the repository's root, without the leading /")
	case strings.ContainsRune(pattern, 0):
		return errors.New("it holds a NUL byte")
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return errors.New("it reaches outside the repository with \"..\"")
		}
	}
	if !doublestar.ValidatePattern(pattern) {
		return errors.New("it is not a valid glob (an unclosed [ or {, or a trailing \\)")
	}
	if _, err := Regexp(pattern); err != nil {
		return err
	}
	return nil
}

// Match reports whether path, slash-separated and relative to the
// repository's root, matches pattern, as doublestar matches it.
func Match(pattern, path string) bool {
	ok, err := doublestar.Match(pattern, path)
	return err == nil && ok
}

// Regexp is pattern as an anchored POSIX extended regular expression that
// Go's regexp and bash's [[ =~ ]] read alike, matching what Match does.
func Regexp(pattern string) (string, error) {
	t := &translator{src: pattern}
	if err := t.run(); err != nil {
		return "", err
	}
	re := "^" + t.out.String() + "$"
	if _, err := regexp.Compile(re); err != nil {
		return "", fmt.Errorf("cannot match it: %v", err)
	}
	return re, nil
}

type translator struct {
	src   string
	i     int
	out   strings.Builder
	depth int // open { alternatives
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch {
		case c == '*':
			t.star()
		case c == '?':
			t.out.WriteString("[^/]")
			t.i++
		case c == '[':
			if err := t.class(); err != nil {
				return err
			}
		case c == '{':
			t.out.WriteString("(")
			t.depth++
			t.i++
		case c == '}' && t.depth > 0:
			t.out.WriteString(")")
			t.depth--
			t.i++
		case c == ',' && t.depth > 0:
			t.out.WriteString("|")
			t.i++
		case c == '\\':
			if t.i+1 >= len(t.src) {
				return errors.New("it ends with a lone \\")
			}
			t.literal(t.src[t.i+1])
			t.i += 2
		case c == '/' && strings.HasPrefix(t.src[t.i:], "/**") && t.i+3 == len(t.src):
			// A trailing /** matches the directory and all below it.
			t.out.WriteString("(/.*)?")
			t.i += 3
		default:
			t.literal(c)
			t.i++
		}
	}
	if t.depth > 0 {
		return errors.New("it has an unclosed {")
	}
	return nil
}

// star translates a * or **: ** as a whole segment matches any number of
// directories, elsewhere it is a *, which matches within a segment.
func (t *translator) star() {
	n := 0
	for t.i+n < len(t.src) && t.src[t.i+n] == '*' {
		n++
	}
	atStart := t.i == 0 || t.src[t.i-1] == '/' || t.src[t.i-1] == '{' || t.src[t.i-1] == ','
	end := t.i + n
	if n >= 2 && atStart {
		switch {
		case end == len(t.src):
			t.out.WriteString(".*")
			t.i = end
			return
		case t.src[end] == '/':
			t.out.WriteString("(.*/)?")
			t.i = end + 1
			return
		}
	}
	t.out.WriteString("[^/]*")
	t.i = end
}

// class translates a [...] class, as doublestar reads one.
// Its members are spelt so that POSIX ERE and RE2 read them alike: ]
// first, ^ not first, - last, \ doubled, ranges over such bytes spelt out.
func (t *translator) class() error {
	j := t.i + 1
	neg := false
	if j < len(t.src) && (t.src[j] == '!' || t.src[j] == '^') {
		neg = true
		j++
	}
	var set [128]bool
	for first := true; ; first = false {
		if j >= len(t.src) {
			return errors.New("it has an unclosed [")
		}
		c := t.src[j]
		if c == ']' {
			if first {
				return errors.New("its [class] is empty")
			}
			j++
			break
		}
		if c == '\\' {
			if j+1 >= len(t.src) {
				return errors.New("it has an unclosed [")
			}
			j++
			c = t.src[j]
		}
		lo, hi := c, c
		if j+2 < len(t.src) && t.src[j+1] == '-' && t.src[j+2] != ']' {
			j += 2
			hi = t.src[j]
			if hi == '\\' && j+1 < len(t.src) {
				j++
				hi = t.src[j]
			}
		}
		j++
		if lo >= 128 || hi >= 128 {
			return errors.New("its [class] holds a character beyond ASCII; match it with ? or *")
		}
		if hi < lo {
			return fmt.Errorf("its class range %c-%c runs backwards", lo, hi)
		}
		for b := lo; ; b++ {
			set[b] = true
			if b == hi {
				break
			}
		}
	}
	t.i = j
	var body strings.Builder
	if set[']'] {
		body.WriteByte(']')
	}
	for b := byte(1); b < 128; b++ {
		if set[b] && !strings.ContainsRune("]^-\\", rune(b)) {
			body.WriteByte(b)
		}
	}
	if set['\\'] {
		body.WriteString(`\\`)
	}
	if set['^'] {
		if body.Len() == 0 && !neg {
			if !set['-'] {
				t.out.WriteString(`\^`)
				return nil
			}
			body.WriteString("-^")
			set['-'] = false
		} else {
			body.WriteByte('^')
		}
	}
	if set['-'] {
		body.WriteByte('-')
	}
	if neg {
		t.out.WriteString("[^" + body.String() + "]")
		return nil
	}
	t.out.WriteString("[" + body.String() + "]")
	return nil
}

// literal writes c matching itself.
func (t *translator) literal(c byte) {
	if strings.IndexByte(`.^$|()[]{}*+?\\`, c) >= 0 {
		t.out.WriteByte('\\')
	}
	t.out.WriteByte(c)
}
