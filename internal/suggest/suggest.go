// Package suggest finds the known name a mistyped one was meant to be,
// for the "did you mean" of every error that names a closed set (spec
// keys and values, registered names, the server's parameters).
package suggest

// Nearest is the word of words closest to s when it is close enough to be
// the one meant (at most 2 edits: "client" for "clients"), else "". Of
// words equally close, the first in words wins.
func Nearest(s string, words []string) string {
	best, bestDist := "", 3 // more than 2 edits away is another word
	for _, w := range words {
		if d := distance(s, w); d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, by bytes (names
// are ASCII); names are short, so the quadratic cost is nothing.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typo of a name
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
