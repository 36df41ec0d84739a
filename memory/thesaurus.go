package memory

import (
	_ "embed" // the thesaurus table
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./internal/genthesaurus -seed internal/genthesaurus/programming.txt -o thesaurus.txt

// thesaurusText maps words people use to the words code uses for the same
// thing ("picture: image"). It is generated from WordNet and a short
// programming table by internal/genthesaurus; never edit it by hand.
//
//go:embed thesaurus.txt
var thesaurusText string

// thesaurus is the parsed table, keyed by the word as written (a WordNet
// lemma), its expansions stemmed as the index stores words; built at first
// use.
var thesaurus = sync.OnceValue(func() map[string][]string {
	t := map[string][]string{}
	for _, l := range strings.Split(thesaurusText, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		w, exp, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		w = strings.TrimSpace(w)
		for _, e := range strings.Fields(exp) {
			for _, s := range Stems(e) {
				if !slices.Contains(t[w], s) {
					t[w] = append(t[w], s)
				}
			}
		}
	}
	return t
})

// lemmas are the forms a query word may have in the thesaurus: itself,
// and without a plural or verb ending (pictures → picture, hooking → hook,
// registered → register, stored → store).
func lemmas(w string) []string {
	out := []string{w}
	for _, suf := range []string{"s", "es", "ies", "ing", "ed"} {
		if b, ok := strings.CutSuffix(w, suf); ok && len(b) >= 3 {
			out = append(out, b)
			switch suf {
			case "ies":
				out = append(out, b+"y")
			case "ing", "ed":
				out = append(out, b+"e")
				if n := len(b); n >= 2 && b[n-1] == b[n-2] {
					out = append(out, b[:n-1]) // stopped → stop
				}
			}
		}
	}
	return out
}

// Expand returns the stems the thesaurus adds to query's (query words are
// not repeated), in a fixed order: what a search also asks for, at a lower
// weight, so that "returning pictures" also finds ImageContent.
func Expand(query string) []string {
	own := Stems(query)
	var out []string
	th := thesaurus()
	for _, w := range Terms(query) {
		for _, l := range lemmas(w) {
			for _, e := range th[l] {
				if !slices.Contains(own, e) && !slices.Contains(out, e) {
					out = append(out, e)
				}
			}
		}
	}
	return out
}
