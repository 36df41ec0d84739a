package schema

import (
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// maxCandidates bounds the work of one suggestion.
const maxCandidates = 500

// Suggest returns the candidate closest to got by edit distance, if that
// distance is below 3 and smaller than got itself, or else the only candidate
// that got abbreviates ("hard" → "hard-instruction"); "" otherwise. Ties go to
// the alphabetically first candidate, so the answer is deterministic.
func Suggest(got string, candidates []string) string {
	if len(candidates) > maxCandidates || len(got) > 200 {
		return "" // a hostile document's thousand agents: no guess is worth the time
	}
	best, bestD := "", 3
	sorted := slices.Clone(candidates)
	slices.Sort(sorted)
	lg := strings.ToLower(got)
	var prefixed []string
	for _, c := range sorted {
		if c == got {
			return ""
		}
		if len(lg) >= 3 && strings.HasPrefix(strings.ToLower(c), lg) {
			prefixed = append(prefixed, c)
		}
		d := levenshtein.ComputeDistance(lg, strings.ToLower(c))
		if d < bestD && d < len(got) {
			best, bestD = c, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}
