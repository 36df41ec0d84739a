package feed

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NearDuplicate is the token-set Jaccard similarity (shared words over all
// words, after normalisation) at or above which two statements of the same
// polarity are one rule. 0.8 lets a five-word rule differ by one word added
// or dropped ("Always run the unit tests" / "Always run unit tests first")
// and no more: at four words one changed word is already 3/5 = 0.6.
const NearDuplicate = 0.8

// stopWords carry no rule: dropping them lets "Run the tests" match "Run
// tests". Negations are never stop words.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "in": true, "on": true, "at": true,
	"for": true, "and": true, "or": true, "your": true, "you": true, "please": true, "it": true,
	"its": true, "that": true, "this": true, "is": true, "are": true, "be": true,
}

// negations flip a rule: two statements are duplicates only when their
// counts of these words have the same parity, so "Do not X" never matches
// "Do X" however similar the rest.
var negations = map[string]bool{
	"not": true, "never": true, "no": true, "none": true, "nothing": true, "cannot": true,
	"avoid": true, "without": true, "nor": true,
}

var contractions = strings.NewReplacer("can't", "can not", "won't", "will not", "n't", " not", "’", "'")

// words normalises a statement for comparison: NFKC, lower case,
// contractions expanded, every character but letters and digits a
// separator, stop words dropped.
func words(s string) []string {
	s = contractions.Replace(strings.ToLower(norm.NFKC.String(s)))
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := f[:0]
	for _, w := range f {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

type shape struct {
	set      map[string]bool
	negative bool
	joined   string
}

func shapeOf(s string) shape {
	ws := words(s)
	sh := shape{set: map[string]bool{}, joined: strings.Join(ws, " ")}
	for _, w := range ws {
		sh.set[w] = true
		if negations[w] {
			sh.negative = !sh.negative
		}
	}
	return sh
}

func (a shape) same(b shape) bool {
	if a.negative != b.negative {
		return false
	}
	if a.joined == b.joined {
		return true
	}
	if len(a.set) == 0 || len(b.set) == 0 {
		return false
	}
	shared := 0
	for w := range a.set {
		if b.set[w] {
			shared++
		}
	}
	union := len(a.set) + len(b.set) - shared
	// shared/union ≥ NearDuplicate, in integers: no rounding at the edge
	return shared*100 >= union*int(NearDuplicate*100)
}

// Duplicate reports whether two statements are the same rule: the same
// normalised words, or a token-set Jaccard similarity of at least
// NearDuplicate, and the same polarity either way.
func Duplicate(a, b string) bool { return shapeOf(a).same(shapeOf(b)) }

// Dedupe returns the candidates that duplicate neither an existing
// statement (the profile's guardrails and earlier suggestions) nor an
// earlier candidate, in their order.
func Dedupe(cands []Candidate, existing []string) []Candidate {
	known := make([]shape, 0, len(existing)+len(cands))
	for _, s := range existing {
		known = append(known, shapeOf(s))
	}
	var fresh []Candidate
	for _, c := range cands {
		sh := shapeOf(c.Statement)
		dup := false
		for _, k := range known {
			if sh.same(k) {
				dup = true
				break
			}
		}
		if !dup {
			fresh = append(fresh, c)
			known = append(known, sh)
		}
	}
	return fresh
}

// Withdrawn returns the indexes, ascending, of the earlier suggestions that
// the document no longer states: no candidate Extract finds in doc.Text
// duplicates them. A NotModified document without text withdraws nothing.
func Withdrawn(earlier []string, doc Document) []int {
	if doc.NotModified && doc.Text == "" {
		return nil
	}
	var current []shape
	for _, c := range Extract(ParseText(doc.Text)) {
		current = append(current, shapeOf(c.Statement))
	}
	var gone []int
	for i, s := range earlier {
		sh := shapeOf(s)
		found := false
		for _, c := range current {
			if sh.same(c) {
				found = true
				break
			}
		}
		if !found {
			gone = append(gone, i)
		}
	}
	return gone
}
