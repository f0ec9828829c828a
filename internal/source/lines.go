package source

import "bytes"

// LineStarts returns the byte offset of the start of every line of src.
func LineStarts(src []byte) []int {
	lines := make([]int, 1, 1+bytes.Count(src, []byte("\n")))
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}
