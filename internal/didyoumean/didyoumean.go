// Package didyoumean guesses what a mistyped word meant — a command, a flag,
// a config key, a request's key — so that every program says "did you mean"
// by one rule. It knows nothing of where the words come from.
package didyoumean

import "strings"

// Nearest is the known word typed most likely meant: the same but for case;
// one edit away (a letter missing, extra or wrong, or two neighbours
// swapped); two edits away when typed is long enough (over 4 letters) that
// two edits still say which; or the only word typed begins (2 letters at
// least). "" when none is close.
func Nearest(typed string, known []string) string {
	best, bestDist := "", 3
	var prefixed []string
	lower := strings.ToLower(typed)
	for _, k := range known {
		if strings.EqualFold(k, typed) {
			return k
		}
		if d := Distance(lower, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
		if len(typed) >= 2 && strings.HasPrefix(strings.ToLower(k), lower) {
			prefixed = append(prefixed, k)
		}
	}
	if bestDist == 1 || bestDist == 2 && len([]rune(typed)) > 4 {
		return best
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// Distance is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and swaps of neighbours cost 1. Words are short,
// so three rows of the table suffice.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
