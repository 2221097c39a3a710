package spec

import "strings"

// nearest returns the word of words closest to s when it is close enough
// to be the one meant (a typo: "client" for "clients"), else "".
func nearest(s string, words []string) string {
	best, bestDist := "", 3 // more than 2 edits away is another word
	for _, w := range words {
		if d := editDistance(s, w); d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes
// (keys are ASCII); keys are short, so the quadratic cost is nothing.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typo of a key
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

// Suggest is "; did you mean NAME?" when value looks like a typo of one of
// names ("shema" for "schema"), else "". Messages that list the allowed
// names append it, so that a slip is named, not only refused.
func Suggest(value string, names []string) string {
	if near := nearest(value, names); near != "" && near != value {
		return "; did you mean " + near + "?"
	}
	return ""
}

// OneOf is the rule of a value that must be one of names, with the
// nearest name when value looks like a typo of it.
func OneOf(value string, names []string) string {
	return "must be one of " + strings.Join(names, ", ") + Suggest(value, names)
}
