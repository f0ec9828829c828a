package shscan

import "strings"

// heredocWord reads a here-document's delimiter: a plain word, bare or in
// single or double quotes.
func (s *scanner) heredocWord(dash bool) {
	if s.bq > 0 || s.nh == maxHdocs {
		s.fail()
		return
	}
	i := s.tpos
	q := s.src[i]
	quoted := q == '\'' || q == '"'
	if quoted {
		i++
	}
	start := i
	for i < len(s.src) && isAlnum(s.src[i]) {
		i++
	}
	if i == start {
		s.fail()
		return
	}
	delim := s.src[start:i]
	if quoted {
		if s.at(i) != q {
			s.fail()
			return
		}
		i++
	}
	if i < len(s.src) {
		switch s.src[i] {
		case ' ', '\t', '\n', ';', '&', '|', ')':
		default:
			s.fail()
			return
		}
	}
	s.hdocs[s.nh] = hdoc{delim: delim, dash: dash, quoted: quoted, level: s.level}
	s.nh++
	s.pos = i
	s.next()
}

// heredocs reads the bodies of the pending here-documents after the
// newline at nl and leaves s.pos at the newline ending the last delimiter.
func (s *scanner) heredocs(nl int) {
	var pending [maxHdocs]hdoc
	n := s.nh
	copy(pending[:], s.hdocs[:n])
	s.nh = 0
	for k := 0; k < n; k++ {
		if pending[k].level != s.level {
			s.fail()
			return
		}
	}
	i := nl + 1
	for k := 0; k < n && !s.bad; k++ {
		h := &pending[k]
		if k > 0 && i < len(s.src) && s.src[i] == '\n' {
			i++
		}
		for {
			if i >= len(s.src) {
				s.fail() // unclosed
				return
			}
			end := strings.IndexByte(s.src[i:], '\n')
			if end < 0 {
				end = len(s.src)
			} else {
				end += i
			}
			line := s.src[i:end]
			cmp := line
			if h.dash {
				cmp = strings.TrimLeft(cmp, "\t")
			}
			if cmp == h.delim {
				i = end
				break
			}
			if !h.quoted {
				// A line continuation joins lines in an expanding body,
				// which mvdan/sh and bash do not agree on in every case;
				// a quoted body keeps its backslashes as they are.
				if line != "" && line[len(line)-1] == '\\' {
					s.fail()
					return
				}
				// mvdan/sh compares the text after an expansion with the
				// delimiter as if it were a whole line.
				if strings.HasSuffix(line, h.delim) {
					s.fail()
					return
				}
				s.bodyLine(i, end)
				if s.bad {
					return
				}
			}
			i = end + 1
		}
	}
	s.pos = i
}

// bodyLine checks the expansions of one line of an unquoted here-document:
// each must end on its line.
func (s *scanner) bodyLine(i, end int) {
	saved := s.body
	s.body = true
	for i < end && !s.bad {
		switch s.src[i] {
		case '\\':
			i += 2
		case '`':
			s.fail()
		case '$':
			i = s.dollar(i, true)
			if i > end {
				s.fail()
			}
		default:
			i++
		}
	}
	s.body = saved
}
