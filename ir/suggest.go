package ir

import "strings"

// Suggest returns the candidate closest to name when it is close enough to be
// a typo of it, else "". Closeness is the optimal string alignment distance
// (insertions, deletions, substitutions and swaps of neighbours) between the
// lowercased names, counted in characters; a candidate is close enough when
// the distance is at most a third of name's length (at least 1) and less than
// the length of both names. Ties go to the first candidate.
func Suggest(name string, candidates []string) string {
	a := []rune(strings.ToLower(name))
	limit := max(1, len(a)/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		b := []rune(strings.ToLower(c))
		d := distance(a, b, bestDist)
		// A distance as long as a name would "suggest" anything for x.
		if d < bestDist && (d == 0 || d < len(a) && d < len(b)) {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b, or any
// value of at least bound when it is bound or more.
func distance(a, b []rune, bound int) int {
	if abs(len(a)-len(b)) >= bound {
		return bound
	}
	// Three rows suffice: a swap looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
